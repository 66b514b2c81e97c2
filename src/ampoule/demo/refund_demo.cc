// `ampoule demo refund` (docs/demo.md): the story of one refund
// through the trust gate, told with real receipts.
#include <algorithm>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ampoule/demo/demos.h"
#include "ampoule/demo/refund_reference.h"
#include "core/rfc3339.h"

namespace ampoule::demo {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kOrder = "A-1002";

// An action draft (docs/gate.md): the refund's amount, recipient and
// currency, each backed by a JSON pointer into the signed output.
Json Draft(const std::string& key, const std::string& amount, const std::string& email,
           const std::string& currency, const std::string& output) {
  return Json{
      {"kind", "refund"},
      {"idempotency_key", key},
      {"fields",
       {{"amount", {{"value", amount}, {"from", "/refund"}}},
        {"recipient", {{"value", email}, {"from", "/email"}}},
        {"currency", {{"value", currency}, {"from", "/currency"}}}}},
      {"data_as_of", core::Rfc3339Seconds(time(nullptr))},
      {"evidence",
       {{"receipt", "refund.receipt.json"},
        {"program", "refund.py"},
        {"inputs", {{"orders.csv", "orders.csv"}}},
        {"stdin", "order.txt"},
        {"output", output}}},
  };
}

std::vector<std::string> Submit(const std::string& draft) {
  return {"gate", "submit", draft, "--policy", "policy.json", "--kernel", Story::kKernelName};
}

// The outbox messages for `key`, by file name.
std::vector<std::string> OutboxFor(const Story& story, const std::string& key) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(fs::path(story.dir()) / "outbox", ec)) {
    std::string name = "outbox/" + e.path().filename().string();
    if (e.path().extension() != ".json") continue;
    core::Result<std::string> text = story.ReadFile(name);
    if (!text.ok()) continue;
    Json message = Json::parse(*text, nullptr, false);
    if (message.is_object() && message.value("idempotency_key", "") == key) found.push_back(name);
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string Field(const Json& doc, const char* name) {
  return doc.is_object() && doc.contains(name) && doc[name].is_string() ? doc[name].get<std::string>()
                                                                        : "";
}

// Step 4: refund.py on every order of the held-out export, each compared
// with the reference computation.
void HeldOutCheck(Story& s) {
  s.Heading("4. The code checked against a held-out export (C++ reference, integer cents)");
  s.Say("A receipt proves what ran, not that the code is right. refund.py runs on orders it was");
  s.Say("not written against; src/ampoule/demo/refund_reference.cc computes each refund independently.");
  core::Result<std::string> csv = s.ReadFile("orders-heldout.csv");
  core::Result<std::vector<OrderRefund>> expected =
      csv.ok() ? ComputeRefunds(*csv) : core::Result<std::vector<OrderRefund>>(csv.error());
  if (!expected.ok()) {
    s.Check("4. held-out export", false, "the reference computes it", expected.message());
    return;
  }
  size_t matched = 0;
  for (const OrderRefund& want : *expected) {
    const std::string stdin_file = "heldout/" + want.order + ".txt";
    (void)s.WriteFile(stdin_file, want.order + "\n");
    core::Result<Captured> run =
        s.Run({"run", "refund.py", "--input", "orders.csv=orders-heldout.csv", "--stdin", stdin_file},
              /*quiet=*/true);
    std::string got = "(no result)";
    if (run.ok()) {
      (void)s.WriteFile("heldout/" + want.order + ".out", run->out);
      Json doc = Json::parse(run->out, nullptr, false);
      if (run->exit_code == 0 && !Field(doc, "refund").empty()) {
        got = Field(doc, "refund") + " " + Field(doc, "currency");
      } else {
        s.ShowIndented(run->err + run->out);
        got = "(exit " + std::to_string(run->exit_code) + ")";
      }
    }
    const std::string want_text = FormatCents(want.refund_cents) + " " + want.currency;
    const bool match = got == want_text;
    matched += match;
    s.Say("held-out " + want.order + ": program " + got + ", expected " + want_text + ": " +
          (match ? "match" : "MISMATCH"));
  }
  const std::string tally = std::to_string(matched) + "/" + std::to_string(expected->size());
  s.Say("held-out check: " + tally + " match");
  s.Check("4. held-out export, refund.py vs reference", matched == expected->size(),
          "all match", tally + " match");
}

}  // namespace

int RunRefundDemo(const DemoOptions& options, FILE* out) {
  core::Result<Story> begun = Story::Begin("refund", options, out);
  if (!begun.ok()) {
    fprintf(stderr, "ampoule demo refund: %s\n", begun.message().c_str());
    return 2;
  }
  Story& s = *begun;
  const std::string key = std::string("refund:") + kOrder;

  s.Heading("Setup: the agent's signing key and the gate's policy");
  s.Expect("setup: signing key", s.Run({"keygen", "-o", "agent.key"}), 0);
  Json policy = {
      {"trusted_keys", {"agent.key.pub"}},
      {"kernel_sha256", s.kernel_sha256()},
      {"max_data_age_seconds", 86400},
      {"replay_fuel_ceiling", 20000000000},
      {"decision_log", "gate.db"},
      {"outbox", "outbox"},
  };
  (void)s.WriteFile("policy.json", policy.dump(2) + "\n");
  s.ShowFile("policy.json");

  s.Heading(std::string("1. The agent computes the refund for ") + kOrder +
            "; it verifies, replays and is sent");
  (void)s.WriteFile("order.txt", std::string(kOrder) + "\n");
  core::Result<Captured> run = s.Run({"run", "refund.py", "--input", "orders.csv", "--stdin", "order.txt",
                                "--key", "agent.key", "-o", "refund.receipt.json"});
  s.Expect("1. run refund.py with a receipt", run, 0);
  Json output = Json::parse(run.ok() ? run->out : "", nullptr, false);
  const std::string amount = Field(output, "refund");
  const std::string email = Field(output, "email");
  const std::string currency = Field(output, "currency");
  if (run.ok()) (void)s.WriteFile("refund.out", run->out);
  s.Say("(its stdout is refund.out, the output the receipt signs)");
  s.Expect("1. replay on the pinned kernel",
           s.Run({"verify", "--replay", "refund.receipt.json", "--key", "agent.key.pub", "--kernel",
                  Story::kKernelName, "--program", "refund.py", "--input", "orders.csv=orders.csv",
                  "--stdin", "order.txt", "--output", "refund.out"}),
           0, "REPLAY OK");
  (void)s.WriteFile("refund.action.json", Draft(key, amount, email, currency, "refund.out").dump(2) + "\n");
  s.ShowFile("refund.action.json");
  s.Expect("1. gate: the verified refund", s.Run(Submit("refund.action.json")), 0, "SEND");
  for (const std::string& message : OutboxFor(s, key)) s.ShowFile(message);

  s.Heading("2. Changed after the run: the output, then the amount in the email");
  // Same digits with a 1 in front: 47.59 becomes 147.59.
  const std::string altered = "1" + amount;
  std::string altered_output = run.ok() ? run->out : "";
  const std::string signed_text = "\"refund\": \"" + amount + "\"";
  if (size_t at = altered_output.find(signed_text); at != std::string::npos) {
    altered_output.replace(at, signed_text.size(), "\"refund\": \"" + altered + "\"");
  }
  (void)s.WriteFile("refund-altered.out", altered_output);
  s.Say("refund-altered.out is refund.out with the amount changed to " + altered + "; its draft");
  s.Say("points evidence.output at it and asserts " + altered + ".");
  Json tampered = Draft(key + "/altered-output", altered, email, currency, "refund-altered.out");
  (void)s.WriteFile("refund-altered.action.json", tampered.dump(2) + "\n");
  s.Expect("2. gate: output altered after the run", s.Run(Submit("refund-altered.action.json")), 1,
           "REFUSE");
  s.Say("");
  s.Say("refund-email.action.json asserts " + altered + " (the amount the email would state) but");
  s.Say("rests on the signed refund.out, which says " + amount + ".");
  Json email_draft = Draft(key + "/email", altered, email, currency, "refund.out");
  (void)s.WriteFile("refund-email.action.json", email_draft.dump(2) + "\n");
  s.Expect("2. gate: amount differs from the signed output",
           s.Run(Submit("refund-email.action.json")), 3, "HOLD");

  s.Heading("3. The same refund submitted again: it goes out once");
  s.Expect("3. gate: the same refund again", s.Run(Submit("refund.action.json")), 4, "ESCALATE");
  std::vector<std::string> messages = OutboxFor(s, key);
  const std::string count =
      std::to_string(messages.size()) + " message" + (messages.size() == 1 ? "" : "s");
  s.Say("The outbox holds " + count + " for " + key + ":");
  for (const std::string& message : messages) s.ShowFile(message);
  s.Check("3. outbox messages for " + key, messages.size() == 1, "1 message", count);
  s.Expect("3. the decision log", s.Run({"gate", "log", "--policy", "policy.json"}), 0);

  HeldOutCheck(s);
  return s.Finish("refund");
}

}  // namespace ampoule::demo
