// Comparing a draft's asserted fields with the signed output.
#include <gtest/gtest.h>

#include "ampoule/gate/exact_json.h"
#include "ampoule/gate/field_check.h"

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

// A field may read an output file the run left; each document is judged
// on its own, and one that was not given matches nothing.
TEST(GateFieldCheck, FieldsFromOutputFiles) {
  auto fields = Fields({{"total", {42, "/total"}},
                        {"paid", {"42.00", "output/report.json#/paid"}},
                        {"rows", {2, "output/t/a.json#/count"}},
                        {"absent", {1, "output/missing.json#/x"}}});
  SignedDocuments docs{{"", kOutput},
                       {"report.json", R"({"paid": "42.00", "total": 43})"},
                       {"t/a.json", R"({"count": 3})"}};
  std::vector<FieldMismatch> m = CompareFields(fields, docs);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].field, "absent");
  EXPECT_EQ(m[0].signed_value, "nothing: output file 'missing.json' was not given");
  EXPECT_EQ(m[1].field, "rows");
  EXPECT_EQ(m[1].signed_value, "3 at output/t/a.json#/count");
}

TEST(GateFieldCheck, FieldSourcesParse) {
  EXPECT_EQ(ParseFieldSource("/a/0")->file, "");
  EXPECT_EQ(ParseFieldSource("output/r.json#/a")->file, "r.json");
  EXPECT_EQ(ParseFieldSource("output/r.json#/a")->pointer, "/a");
  for (const char* bad : {"a", "", "output/r.json", "output/../x#/a", "output/#/a", "output/r.json#a",
                          "/a~2"}) {
    EXPECT_FALSE(ParseFieldSource(bad)) << bad;
  }
}

}  // namespace
}  // namespace ampoule::gate

namespace ampoule::gate {
namespace {

// A draft value as the draft parser reads it (numbers checked to be carried
// exactly), or an error.
core::Result<nlohmann::json> DraftValue(std::string_view text) {
  core::Result<ExactDocument> doc = ParseExact(text, "value");
  if (!doc.ok()) return doc.status();
  return ExactValue(doc->tree, doc->numbers, "value");
}

// Whether the draft value `draft` equals the output's `/v` when the output
// is {"v": OUTPUT}.
bool Equal(std::string_view draft, std::string_view output) {
  core::Result<nlohmann::json> value = DraftValue(draft);
  EXPECT_TRUE(value.ok()) << draft << ": " << value.message();
  if (!value.ok()) return false;
  auto fields = Fields({{"v", {*value, "/v"}}});
  std::vector<FieldMismatch> m = CompareFields(fields, "{\"v\": " + std::string(output) + "}");
  return m.empty();
}

TEST(GateExactNumbers, NumbersCompareAsExactDecimals) {
  // Equal once rounded to a double, different as numbers.
  EXPECT_FALSE(Equal("10000000000000001", "1e16"));
  EXPECT_FALSE(Equal("1e16", "10000000000000001"));
  EXPECT_FALSE(Equal("9007199254740992", "9007199254740993"));  // 2^53 and 2^53 + 1
  EXPECT_FALSE(Equal("9007199254740993", "9007199254740992"));
  EXPECT_FALSE(Equal("0.1", "0.10000000000000001"));
  EXPECT_FALSE(Equal("1e308", "1.0000000000000001e308"));
  EXPECT_FALSE(Equal("18446744073709551615", "18446744073709551616"));  // 2^64 - 1 and 2^64
  EXPECT_FALSE(Equal("1", "-1"));
  EXPECT_FALSE(Equal("1e308", "1e309"));
  EXPECT_FALSE(Equal("1e308", "1e400"));
  EXPECT_FALSE(Equal("0", "1e-400"));  // not rounded to zero
  EXPECT_FALSE(Equal("\"1e400\"", "1e400"));  // a string is not a number
  // The same value however it is written: exact decimal equality.
  EXPECT_TRUE(Equal("9007199254740993", "9007199254740993"));
  EXPECT_TRUE(Equal("9007199254740993", "9007199254740993.000"));
  EXPECT_TRUE(Equal("10000000000000001", "10000000000000001"));
  EXPECT_TRUE(Equal("1e16", "10000000000000000"));
  EXPECT_TRUE(Equal("18446744073709551615", "18446744073709551615"));
  EXPECT_TRUE(Equal("-9223372036854775808", "-9223372036854775808"));
  EXPECT_TRUE(Equal("0.1", "0.10000"));
  EXPECT_TRUE(Equal("12.50", "12.5"));
  EXPECT_TRUE(Equal("1e308", "1E+308"));
  for (const char* one : {"1", "1.0", "1e0", "10e-1", "0.1e1", "100E-2", "1.000000000000000000000000000000"}) {
    EXPECT_TRUE(Equal("1", one)) << one;
  }
  for (const char* zero : {"0", "-0", "0.0", "-0.0", "0e5", "0E-999999999", "-0e+99999999999999999999"}) {
    EXPECT_TRUE(Equal("0", zero)) << zero;  // -0 equals 0: the same decimal value
    EXPECT_TRUE(Equal("-0", zero)) << zero;
  }
  // Inside arrays and objects, by the same rule.
  EXPECT_TRUE(Equal(R"([1, {"a": 1.50, "b": [0]}])", R"([1.0, {"b": [-0], "a": 15e-1}])"));
  EXPECT_FALSE(Equal(R"([1, {"a": 1.50}])", R"([1, {"a": 1.5, "b": 1}])"));
  EXPECT_FALSE(Equal(R"([1e16])", R"([10000000000000001])"));
  EXPECT_FALSE(Equal(R"({"a": 1})", R"({"a": 1, "a ": 1})"));
}

TEST(GateExactNumbers, HugeExponentsAreReadNotRounded) {
  // Exponents beyond 64 bits, compared as digits.
  EXPECT_TRUE(SameNumber("1e99999999999999999999999", "10e99999999999999999999998"));
  EXPECT_TRUE(SameNumber("1e-99999999999999999999999", "0.1e-99999999999999999999998"));
  EXPECT_TRUE(SameNumber("-25e-99999999999999999999999", "-2.5e-99999999999999999999998"));
  EXPECT_FALSE(SameNumber("1e99999999999999999999999", "1e99999999999999999999998"));
  EXPECT_FALSE(SameNumber("1e99999999999999999999999", "-1e99999999999999999999999"));
  EXPECT_FALSE(SameNumber("1e9223372036854775807", "1e-9223372036854775808"));
  EXPECT_TRUE(SameNumber("10e9223372036854775807", "1e9223372036854775808"));
  // Not numbers at all.
  for (const char* bad : {"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "0x10", "1.5.2", "NaN", "Infinity", "null"}) {
    EXPECT_FALSE(SameNumber(bad, bad)) << bad;
  }
  // In the signed output, such numbers are read and shown as written.
  const std::string output =
      R"({"big": 1e999999999, "tiny": -1e-999999999, "wide": 18446744073709551617, "over": 1e400,
          "exp": 1e99999999999999999999999999999999999999, "s": "1e400 \"2\" \\", "x": 2})";
  auto fields = Fields({{"big", {1, "/big"}},
                        {"tiny", {0, "/tiny"}},
                        {"wide", {"18446744073709551617", "/wide"}},
                        {"over", {1e308, "/over"}},
                        {"exp", {nullptr, "/exp"}},
                        {"s", {"1e400 \"2\" \\", "/s"}},
                        {"x", {2.0, "/x"}}});
  std::vector<FieldMismatch> m = CompareFields(fields, output);
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[0].signed_value, "1e999999999 at /big");
  EXPECT_EQ(m[1].signed_value, "1e99999999999999999999999999999999999999 at /exp");
  EXPECT_EQ(m[2].signed_value, "1e400 at /over");
  EXPECT_EQ(m[3].signed_value, "-1e-999999999 at /tiny");
  EXPECT_EQ(m[4].signed_value, "18446744073709551617 at /wide");
  // A long run of digits in an exponent costs its length, no more.
  const std::string long_exponent = "1e" + std::string(200000, '9');
  EXPECT_TRUE(SameNumber(long_exponent, "10e" + std::string(199999, '9') + "8"));
}

TEST(GateExactNumbers, DraftNumbersMustBeCarriedExactly) {
  // What the gate compares is what it delivers: a draft number nlohmann
  // would round is refused with a fix.
  for (const char* bad : {"18446744073709551617", "18446744073709551616", "-9223372036854775809", "1e400",
                          "1e309", "-1e400", "1e999999999", "9007199254740993.0", "0.10000000000000001",
                          "1e-400", "[1, 1e400]", R"({"a": {"b": 18446744073709551617}})"}) {
    core::Result<nlohmann::json> v = DraftValue(bad);
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_NE(v.message().find("cannot be carried exactly"), std::string::npos) << v.message();
    EXPECT_NE(v.message().find("carry it as a string"), std::string::npos) << v.message();
  }
  for (const char* good : {"18446744073709551615", "-9223372036854775808", "9007199254740993", "1e308", "0.1",
                           "12.50", "1e16", "-0", "5e-324", "[1, 2.5, {\"a\": 0}]"}) {
    core::Result<nlohmann::json> v = DraftValue(good);
    EXPECT_TRUE(v.ok()) << good << ": " << v.message();
  }
  EXPECT_EQ(DraftValue("18446744073709551615")->get<uint64_t>(), 18446744073709551615u);
  EXPECT_EQ(DraftValue("9007199254740993")->get<uint64_t>(), 9007199254740993u);
}

TEST(GateExactNumbers, ParsesLikeTheStrictParser) {
  for (const char* bad : {"", "01", "[1.]", "[.5]", "[+1]", "[1e]", "[-]", "[1 2]", "[1-2]", "{\"a\": 1, \"a\": 2}",
                          "[1,]", "\"unterminated", "[\"\\\"]", "1 2", "[0x1]", "[NaN]", "[Infinity]", "[-Infinity]",
                          "[1e5e5]", "true1", "[tru]"}) {
    EXPECT_FALSE(ParseExact(bad, "x").ok()) << bad;
  }
  core::Result<ExactDocument> doc = ParseExact(R"( {"a": [1, -2.50e+3, "3", {"4": 5}], "b": "\"6\u0037"} )", "x");
  ASSERT_TRUE(doc.ok()) << doc.message();
  EXPECT_EQ(doc->numbers, (std::vector<std::string>{"1", "-2.50e+3", "5"}));
  EXPECT_EQ(DumpExact(doc->tree, doc->numbers), R"({"a":[1,-2.50e+3,"3",{"4":5}],"b":"\"67"})");
}

}  // namespace
}  // namespace ampoule::gate

namespace ampoule::gate {
namespace {

// A refund draft whose fields come from the given pointers.
ActionDraft Draft(std::initializer_list<std::pair<std::string, std::string>> sources, std::string kind = "refund") {
  ActionDraft d;
  d.kind = std::move(kind);
  d.idempotency_key = "refund:A-1";
  for (const auto& [name, from] : sources) d.fields[name] = {"x", from};
  return d;
}

Policy Pinned() {
  Policy p;
  p.kinds["refund"].from = {{"amount", "/orders/*/amount"}, {"recipient", "/orders/*/customer"}};
  p.kinds["refund"].same_record = "/orders/*";
  return p;
}

TEST(GateSources, FieldsFromOneRecordWherePinnedPass) {
  EXPECT_TRUE(CheckSources(Draft({{"amount", "/orders/0/amount"}, {"recipient", "/orders/0/customer"}}), Pinned()).empty());
  EXPECT_TRUE(CheckSources(Draft({{"amount", "/orders/17/amount"}, {"recipient", "/orders/17/customer"}}), Pinned()).empty());
  // A kind the policy does not name has no pinned sources.
  EXPECT_TRUE(CheckSources(Draft({{"amount", "/total"}}, "invoice"), Pinned()).empty());
  EXPECT_TRUE(CheckSources(Draft({{"amount", "/orders/0/amount"}}), Policy{}).empty());
}

TEST(GateSources, AnotherRecordsAmountIsHeld) {
  // The recipient of orders[0] paired with the amount of orders[1].
  std::vector<std::string> r =
      CheckSources(Draft({{"recipient", "/orders/0/customer"}, {"amount", "/orders/1/amount"}}), Pinned());
  ASSERT_EQ(r.size(), 1u);
  EXPECT_NE(r[0].find("draft field 'recipient' comes from /orders/0/customer, outside /orders/1"), std::string::npos)
      << r[0];
  EXPECT_NE(r[0].find("same_record /orders/*"), std::string::npos) << r[0];
  // same_record alone catches it too.
  Policy only_same;
  only_same.kinds["refund"].same_record = "/orders/*";
  EXPECT_EQ(CheckSources(Draft({{"recipient", "/orders/0/customer"}, {"amount", "/orders/1/amount"}}), only_same).size(),
            1u);
  std::vector<std::string> outside = CheckSources(Draft({{"amount", "/orders/0/amount"}, {"recipient", "/customer"}}), only_same);
  ASSERT_EQ(outside.size(), 1u);
  EXPECT_NE(outside[0].find("'recipient' comes from /customer, not from a record /orders/*"), std::string::npos)
      << outside[0];
}

// Without a same_record rule the safe one holds: a policy that names no
// kind still holds a recipient paired with another record's amount.
TEST(GateSources, ByDefaultAllFieldsComeFromOneRecord) {
  const auto cross = Draft({{"recipient", "/orders/0/customer"}, {"amount", "/orders/1/amount"}});
  std::vector<std::string> r = CheckSources(cross, Policy{});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], "draft field 'recipient' comes from /orders/0/customer, outside /orders/1, the record draft field "
                  "'amount' comes from: by default all fields of a kind come from one record (a policy allows "
                  "otherwise with kinds.refund.same_record, a pattern such as /orders/*, or false)");
  // Also for a kind the policy names with `from` only, and one it does not name.
  Policy from_only;
  from_only.kinds["refund"].from = {{"amount", "/orders/*/amount"}, {"recipient", "/orders/*/customer"}};
  EXPECT_EQ(CheckSources(cross, from_only).size(), 1u);
  EXPECT_EQ(CheckSources(Draft({{"a", "/x/0/a"}, {"b", "/x/1/b"}}, "invoice"), from_only).size(), 1u);
  // One record: the top level, or one element.
  EXPECT_TRUE(CheckSources(Draft({{"amount", "/refund"}, {"recipient", "/email"}}), Policy{}).empty());
  EXPECT_TRUE(CheckSources(Draft({{"amount", "/orders/1/amount"}, {"recipient", "/orders/1/customer"}}), Policy{})
                  .empty());
  // The same pointer in another document is another record.
  EXPECT_EQ(CheckSources(Draft({{"amount", "output/r.json#/amount"}, {"recipient", "/customer"}}), Policy{}).size(), 1u);
  // A member nested deeper is another record unless the policy names the
  // record's shape; a policy may also let the fields come from anywhere.
  const auto nested = Draft({{"amount", "/orders/0/amount"}, {"recipient", "/orders/0/customer/email"}});
  EXPECT_EQ(CheckSources(nested, Policy{}).size(), 1u);
  Policy shaped;
  shaped.kinds["refund"].same_record = "/orders/*";
  EXPECT_TRUE(CheckSources(nested, shaped).empty());
  Policy any;
  any.kinds["refund"].records_may_differ = true;
  EXPECT_TRUE(CheckSources(cross, any).empty());
}

TEST(GateSources, APointerOtherThanThePinnedOneIsHeld) {
  std::vector<std::string> r =
      CheckSources(Draft({{"amount", "/orders/0/total"}, {"recipient", "/orders/0/customer"}}), Pinned());
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], "draft field 'amount' comes from /orders/0/total, but the policy pins it to /orders/*/amount "
                  "for kind 'refund'");
  // '*' is an array index as RFC 6901 writes one, nothing else.
  for (const char* from : {"/orders/01/amount", "/orders/-/amount", "/orders/x/amount", "/orders//amount",
                           "/orders/0/amount/more", "/orders/amount", "/orders/0/0/amount", "/Orders/0/amount"}) {
    EXPECT_FALSE(CheckSources(Draft({{"amount", from}}), Pinned()).empty()) << from;
  }
  // A field the policy pins no source for is held: every source is pinned.
  std::vector<std::string> extra = CheckSources(
      Draft({{"amount", "/orders/0/amount"}, {"recipient", "/orders/0/customer"}, {"note", "/orders/0/note"}}), Pinned());
  ASSERT_EQ(extra.size(), 1u);
  EXPECT_NE(extra[0].find("'note' has no source pinned by the policy for kind 'refund' (pinned: amount, recipient)"),
            std::string::npos)
      << extra[0];
}

// An output file holding the same shape as stdout cannot stand in for it:
// the pinned source names its document, and same_record spans one document.
TEST(GateSources, AnotherDocumentIsAnotherSource) {
  std::vector<std::string> r = CheckSources(
      Draft({{"amount", "output/forged.json#/orders/0/amount"}, {"recipient", "/orders/0/customer"}}), Pinned());
  ASSERT_FALSE(r.empty());
  EXPECT_NE(r[0].find("comes from output/forged.json#/orders/0/amount, but the policy pins it to /orders/*/amount"),
            std::string::npos)
      << r[0];
  Policy in_file;
  in_file.kinds["refund"].from = {{"amount", "output/r.json#/orders/*/amount"},
                                  {"recipient", "output/r.json#/orders/*/customer"}};
  in_file.kinds["refund"].same_record = "output/r.json#/orders/*";
  EXPECT_TRUE(CheckSources(Draft({{"amount", "output/r.json#/orders/3/amount"},
                                  {"recipient", "output/r.json#/orders/3/customer"}}),
                           in_file)
                  .empty());
  EXPECT_FALSE(CheckSources(Draft({{"amount", "output/r.json#/orders/3/amount"},
                                   {"recipient", "output/r.json#/orders/4/customer"}}),
                            in_file)
                   .empty());
  EXPECT_FALSE(CheckSources(Draft({{"amount", "/orders/3/amount"}, {"recipient", "/orders/3/customer"}}), in_file)
                   .empty());
}

}  // namespace
}  // namespace ampoule::gate
