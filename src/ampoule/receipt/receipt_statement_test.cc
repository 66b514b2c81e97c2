// The in-toto Statement v1 model: strict where receipts rely on it, lenient
// where the in-toto parsing rules require it.
#include <gtest/gtest.h>

#include <string>

#include "ampoule/receipt/statement.h"

namespace ampoule::receipt {
namespace {

const std::string kDigest(64, 'a');

std::string Doc(const std::string& subject, const std::string& rest = R"("predicateType": "p")") {
  return R"({"_type": "https://in-toto.io/Statement/v1", "subject": )" + subject + ", " + rest +
         "}";
}

std::string Subject(const std::string& name = "out") {
  return R"([{"name": ")" + name + R"(", "digest": {"sha256": ")" + kDigest + R"("}}])";
}

std::string ErrorOf(const std::string& text) {
  core::Result<Statement> statement = ParseStatement(text);
  EXPECT_FALSE(statement.ok()) << text;
  return statement.ok() ? "" : statement.message();
}

TEST(Statement, ParsesAMinimalStatement) {
  core::Result<Statement> statement = ParseStatement(Doc(Subject()));
  ASSERT_TRUE(statement.ok()) << statement.message();
  ASSERT_EQ(statement->subject.size(), 1u);
  EXPECT_EQ(statement->subject[0].name, "out");
  EXPECT_EQ(statement->subject[0].sha256(), kDigest);
  EXPECT_EQ(statement->predicate_type, "p");
  EXPECT_EQ(statement->predicate, nlohmann::json::object());  // unset = empty
}

TEST(Statement, RoundTrips) {
  Statement statement;
  statement.subject.push_back({"stdout", {{"sha256", kDigest}}});
  statement.subject.push_back({"", {{"sha256", std::string(64, '0')}, {"sha512", "ab"}}});
  statement.predicate_type = "https://example.com/run/v2";
  statement.predicate = {{"seed", 7}, {"result", {{"status", 0}}}};
  std::string text = SerializeStatement(statement);
  EXPECT_EQ(text.rfind(R"({"_type":"https://in-toto.io/Statement/v1",)", 0), 0u) << text;
  core::Result<Statement> parsed = ParseStatement(text);
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  EXPECT_EQ(SerializeStatement(*parsed), text);
  EXPECT_EQ(parsed->subject[1].digest.at("sha512"), "ab");
  EXPECT_EQ(parsed->predicate["result"]["status"], 0);
}

TEST(Statement, IgnoresUnknownFieldsAndDigestAlgorithms) {
  core::Result<Statement> statement = ParseStatement(Doc(
      R"([{"digest": {"sha256": ")" + kDigest +
          R"(", "gitCommit": "x"}, "uri": "u", "annotations": {"a": [1]}}])",
      R"("predicateType": "p", "predicate": {"any": {"thing": null}}, "extension": 1)"));
  ASSERT_TRUE(statement.ok()) << statement.message();
  EXPECT_EQ(statement->subject[0].name, "");  // name is optional
}

TEST(Statement, RequiresTheV1Type) {
  ErrorOf(R"({"subject": [], "predicateType": "p"})");
  EXPECT_NE(ErrorOf(R"({"_type": "https://in-toto.io/Statement/v0.1", "subject": )" + Subject() +
                    R"(, "predicateType": "p"})")
                .find("_type"),
            std::string::npos);
  ErrorOf(R"({"_type": 1, "subject": )" + Subject() + R"(, "predicateType": "p"})");
}

TEST(Statement, RequiresSubjectsWithSha256) {
  EXPECT_NE(ErrorOf(R"({"_type": "https://in-toto.io/Statement/v1", "predicateType": "p"})")
                .find("subject"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Doc("[]")).find("empty"), std::string::npos);
  ErrorOf(Doc("{}"));
  ErrorOf(Doc("[1]"));
  ErrorOf(Doc(R"([{"name": "x"}])"));
  ErrorOf(Doc(R"([{"digest": []}])"));
  EXPECT_NE(ErrorOf(Doc(R"([{"digest": {"sha512": "ab"}}])")).find("sha256"), std::string::npos);
  ErrorOf(Doc(R"([{"digest": {"sha256": ")" + std::string(64, 'A') + R"("}}])"));  // uppercase
  ErrorOf(Doc(R"([{"digest": {"sha256": ")" + std::string(63, 'a') + R"("}}])"));
  ErrorOf(Doc(R"([{"digest": {"sha256": ")" + kDigest + R"(", "md5": 5}}])"));
  ErrorOf(Doc(R"([{"name": 5, "digest": {"sha256": ")" + kDigest + R"("}}])"));
}

TEST(Statement, RequiresPredicateTypeAndObjectPredicate) {
  ErrorOf(Doc(Subject(), R"("predicate": {})"));
  ErrorOf(Doc(Subject(), R"("predicateType": "")"));
  ErrorOf(Doc(Subject(), R"("predicateType": ["p"])"));
  ErrorOf(Doc(Subject(), R"("predicateType": "p", "predicate": [])"));
  ErrorOf(Doc(Subject(), R"("predicateType": "p", "predicate": null)"));
}

TEST(Statement, RejectsMalformedJson) {
  ErrorOf("");
  ErrorOf("[]");
  ErrorOf(Doc(Subject()) + "x");
  EXPECT_NE(ErrorOf(Doc(Subject(), R"("predicateType": "p", "predicateType": "q")"))
                .find("duplicate"),
            std::string::npos);
}

}  // namespace
}  // namespace ampoule::receipt
