// Comparing a draft's asserted fields with the signed output.
#include <gtest/gtest.h>

#include "gate/field_check.h"

namespace ampoule::gate {
namespace {

std::map<std::string, AssertedField> Fields(std::initializer_list<std::pair<std::string, AssertedField>> list) {
  return {list.begin(), list.end()};
}

const char* kOutput = R"({"refunds": [{"order": "A-1002", "amount": "42.00"}], "total": 42, "a/b": true})";

TEST(GateFieldCheck, EqualValuesMatch) {
  auto fields = Fields({{"amount", {"42.00", "/refunds/0/amount"}},
                        {"total", {42, "/total"}},
                        {"flag", {true, "/a~1b"}},
                        {"whole", {nlohmann::json::parse(R"({"order": "A-1002", "amount": "42.00"})"), "/refunds/0"}}});
  EXPECT_TRUE(CompareFields(fields, kOutput).empty());
}

TEST(GateFieldCheck, EveryDifferenceIsListedWithBothValues) {
  auto fields = Fields({{"amount", {"52.00", "/refunds/0/amount"}},
                        {"total", {"42", "/total"}},  // a string is not the number 42
                        {"missing", {1, "/refunds/1/amount"}},
                        {"bad_pointer", {1, "/refunds/x~2"}}});
  std::vector<FieldMismatch> m = CompareFields(fields, kOutput);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].field, "amount");
  EXPECT_EQ(m[0].draft, "\"52.00\"");
  EXPECT_EQ(m[0].signed_value, "\"42.00\" at /refunds/0/amount");
  EXPECT_EQ(m[1].field, "bad_pointer");
  EXPECT_EQ(m[1].signed_value, "nothing at /refunds/x~2");
  EXPECT_EQ(m[2].field, "missing");
  EXPECT_EQ(m[3].field, "total");
  EXPECT_EQ(m[3].signed_value, "42 at /total");
}

TEST(GateFieldCheck, OutputThatIsNotJsonMatchesNothing) {
  auto fields = Fields({{"amount", {"42.00", "/amount"}}});
  EXPECT_EQ(CompareFields(fields, "42.00")[0].signed_value, "nothing at /amount");  // JSON, but a number
  for (const char* output : {"", "{\"amount\": \"42.00\"} trailing", "{\"amount\": 1, \"amount\": 2}"}) {
    std::vector<FieldMismatch> m = CompareFields(fields, output);
    ASSERT_EQ(m.size(), 1u) << output;
    EXPECT_NE(m[0].signed_value.find("not one JSON document"), std::string::npos);
  }
}

}  // namespace
}  // namespace ampoule::gate
