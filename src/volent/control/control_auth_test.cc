// Who may call what: every route of the table against no credential, bad
// ones (malformed, unknown, wrong secret, expired, revoked) and each role;
// approvals attributed to the authenticated identity and signed by the
// approver; failed authentications limited and journaled; no token in any
// answer or journal entry. The route table drives the matrix, so a route
// added later is covered without a line here.
#include "volent/control/auth.h"

#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "core/base64.h"
#include "core/file_write.h"
#include "volent/access/approval_signature.h"
#include "volent/control/api.h"
#include "volent/control/test_fixtures.h"

namespace volent::control {
namespace {

using nlohmann::json;

// The policy, written out apart from principal.cc: which granted role may
// call a route that needs which role.
bool Expected(access::Role granted, access::Role needed) {
  if (granted == access::Role::kAdmin) return true;
  if (needed == access::Role::kReader) return true;
  return granted == needed;
}

class AuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/control_auth_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto config = manifest::LoadNodeConfig(testing::kNodeConfig, "volent.yaml");
    ASSERT_TRUE(config.ok());
    config_ = std::move(*config.value);
    auto store = store::AgentStore::Open("");
    ASSERT_TRUE(store.ok());
    store_ = std::move(*store);
    journal::OpenOptions options;
    options.clock = [this] { return now_ms_; };
    auto j = journal::Journal::Open(dir_, options);
    ASSERT_TRUE(j.ok()) << j.message();
    journal_ = std::move(*j);
    auto credentials = access::CredentialStore::Open(dir_, [this] { return now_ms_; });
    ASSERT_TRUE(credentials.ok()) << credentials.message();
    credentials_ = std::move(*credentials);
    Build(Unlimited());
    runs_.AddApproval(7, "r1", "refund");
  }
  void TearDown() override {
    api_.reset();
    journal_.reset();
    std::filesystem::remove_all(dir_);
  }

  static FailureLimits Unlimited() {
    FailureLimits l;
    l.burst = l.per_second = l.id_burst = l.id_per_second = l.global_burst = l.global_per_second = 1e9;
    return l;
  }

  void Build(FailureLimits limits, bool mtls = false) {
    api_.reset();
    AuthOptions o;
    o.mtls = mtls;
    o.credentials = credentials_.get();
    o.journal = journal_.get();
    o.limits = limits;
    o.clock = [this] { return now_ms_; };
    auth_ = std::make_unique<Authenticator>(o);
    ApiContext ctx;
    ctx.store = store_.get();
    ctx.config = &config_;
    ctx.runs = &runs_;
    ctx.journal = journal_.get();
    ctx.auth = auth_.get();
    ctx.credentials = credentials_.get();
    api_ = std::make_unique<ControlApi>(ctx);
  }

  std::string Token(std::vector<access::Role> roles, int64_t ttl = 3600, std::string approval_key = "") {
    access::NewCredential c;
    c.name = "t" + std::to_string(++made_);
    c.roles = std::move(roles);
    c.ttl_seconds = ttl;
    c.approval_key = std::move(approval_key);
    c.created_by = "test";
    auto made = credentials_->Create(c);
    EXPECT_TRUE(made.ok()) << made.message();
    tokens_.push_back(made->second);
    return made->second;
  }

  // A concrete path for a template: every {param} becomes a value of its form.
  static std::string Concrete(const std::string& path) {
    std::string out;
    for (size_t i = 0; i < path.size(); ++i) {
      if (path[i] != '{') {
        out += path[i];
        continue;
      }
      size_t end = path.find('}', i);
      std::string name = path.substr(i + 1, end - i - 1);
      out += name == "id" && path.find("credentials") != std::string::npos ? "0123456789abcdef"
             : name == "id" || name == "step"                               ? "7"
                                                                            : "x";
      i = end;
    }
    return out;
  }

  Response Send(const Route& route, const std::string& authorization, const std::string& peer = "192.0.2.1") {
    Request r;
    r.method = route.method;
    r.path = Concrete(route.path);
    if (route.path == "/v1/attestation") r.query = "nonce=00";
    r.authorization = authorization;
    r.peer = peer;
    if (!route.request_media_types.empty()) {
      r.content_type = route.request_media_types.front();
      r.body = "{}";
    }
    return api_->Dispatch(std::move(r));
  }

  Response Call(const std::string& method, const std::string& path, const std::string& token, std::string body = "",
                const std::string& peer = "192.0.2.1", bool certificate = false) {
    Request r;
    if (certificate) {
      r.certificate.present = true;
      r.certificate.subject = "OU=admin,CN=alice";
      r.certificate.sha256 = std::string(64, 'c');
      r.certificate.units = {"admin"};
      // Valid from 2000 to 2100: the authenticator checks it on every request.
      r.certificate.not_before = 946684800;
      r.certificate.not_after = 4102444800;
    }
    r.method = method;
    SplitTarget(path, r);
    r.authorization = token.empty() ? "" : "Bearer " + token;
    r.peer = peer;
    if (!body.empty()) {
      r.content_type = "application/json";
      r.body = std::move(body);
    }
    return api_->Dispatch(std::move(r));
  }

  std::vector<journal::Entry> Entries(journal::EntryKind kind) {
    auto entries = journal_->ReadKind(kind, 0, 1000);
    EXPECT_TRUE(entries.ok());
    return entries.ok() ? *entries : std::vector<journal::Entry>{};
  }

  std::string dir_;
  int64_t now_ms_ = testing::kT0;
  int made_ = 0;
  std::vector<std::string> tokens_;
  manifest::NodeConfig config_;
  std::unique_ptr<store::AgentStore> store_;
  std::unique_ptr<journal::Journal> journal_;
  std::unique_ptr<access::CredentialStore> credentials_;
  std::unique_ptr<Authenticator> auth_;
  testing::FakeRuns runs_;
  std::unique_ptr<ControlApi> api_;
};

TEST_F(AuthTest, EveryRouteNamesItsRole) {
  for (const Route& route : api_->routes().routes()) {
    EXPECT_NE(route.role, access::Role::kUndeclared) << route.method << " " << route.path;
  }
}

TEST_F(AuthTest, TheOpenApiDocumentDeclaresTheSchemesAndEachOperationsRole) {
  json doc = json::parse(api_->openapi_json());
  EXPECT_EQ(doc["components"]["securitySchemes"]["bearerAuth"]["scheme"], "bearer");
  EXPECT_EQ(doc["components"]["securitySchemes"]["mutualTLS"]["type"], "mutualTLS");
  for (const Route& route : api_->routes().routes()) {
    std::string method = route.method;
    for (char& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const json& op = doc["paths"][route.path][method];
    EXPECT_EQ(op["x-volent-role"], access::RoleName(route.role)) << route.path;
    EXPECT_EQ(op["security"].size(), 2u) << route.path;
    EXPECT_TRUE(op["responses"].contains("401") && op["responses"].contains("403")) << route.path;
  }
}

TEST_F(AuthTest, EveryRouteRefusesAMissingOrBadCredentialWith401) {
  const std::string expired = Token({access::Role::kAdmin}, 60);
  const std::string revoked = Token({access::Role::kAdmin});
  ASSERT_TRUE(credentials_->Revoke(revoked.substr(4, 16), "test").ok());
  now_ms_ += 61'000;
  std::string wrong_secret = Token({access::Role::kAdmin});
  wrong_secret.back() = wrong_secret.back() == '0' ? '1' : '0';
  const std::string unknown = "vlt_0000000000000000_" + std::string(64, 'a');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"none", ""},
      {"not bearer", "Basic YWRtaW46YWRtaW4="},
      {"malformed", "Bearer vlt_nope"},
      {"unknown", "Bearer " + unknown},
      {"wrong secret", "Bearer " + wrong_secret},
      {"expired", "Bearer " + expired},
      {"revoked", "Bearer " + revoked},
  };
  for (const Route& route : api_->routes().routes()) {
    for (const auto& [what, authorization] : cases) {
      Response r = Send(route, authorization);
      EXPECT_EQ(r.status, 401) << what << ": " << route.method << " " << route.path;
      EXPECT_EQ(r.content_type, kProblemContentType);
      bool challenged = false;
      for (const auto& [name, value] : r.headers) {
        if (name == "WWW-Authenticate" && value.rfind("Bearer realm=\"volent\"", 0) == 0) challenged = true;
      }
      EXPECT_TRUE(challenged) << what << ": " << route.path;
      EXPECT_EQ(json::parse(r.body)["type"], "urn:volent:problem:unauthorized");
    }
  }
}

TEST_F(AuthTest, EachRoleAgainstEveryRoute) {
  const std::vector<access::Role> roles = {access::Role::kReader, access::Role::kOperator, access::Role::kApprover, access::Role::kAdmin};
  std::map<access::Role, std::string> tokens;
  for (access::Role role : roles) tokens[role] = Token({role});
  for (const Route& route : api_->routes().routes()) {
    for (access::Role role : roles) {
      Response r = Send(route, "Bearer " + tokens[role]);
      const std::string where = std::string(access::RoleName(role)) + ": " + route.method + " " + route.path;
      if (Expected(role, route.role)) {
        EXPECT_NE(r.status, 401) << where;
        EXPECT_NE(r.status, 403) << where << " " << r.body;
      } else {
        ASSERT_EQ(r.status, 403) << where;
        json problem = json::parse(r.body);
        EXPECT_EQ(problem["type"], "urn:volent:problem:forbidden");
        EXPECT_NE(problem["detail"].get<std::string>().find(access::RoleName(route.role)), std::string::npos);
      }
    }
  }
  // Operator and approver apart, and together on one credential.
  const std::string both = Token({access::Role::kOperator, access::Role::kApprover});
  for (const Route& route : api_->routes().routes()) {
    int status = Send(route, "Bearer " + both).status;
    EXPECT_EQ(status == 403, route.role == access::Role::kAdmin) << route.path;
  }
}

TEST_F(AuthTest, TheApprovalNamesTheAuthenticatedIdentityNotTheBody) {
  const std::string approver = Token({access::Role::kApprover});
  Response self_named = Call("POST", "/v1/approvals/7/approve", approver, R"({"by":"the CFO"})");
  EXPECT_EQ(self_named.status, 422);
  Response r = Call("POST", "/v1/approvals/7/approve", approver, R"({"reason":"ok"})");
  ASSERT_EQ(r.status, 200) << r.body;
  json a = json::parse(r.body);
  const std::string id = approver.substr(4, 16);
  EXPECT_EQ(a["decided_by"], "token " + id + " (t1)");
  EXPECT_EQ(a["decided_by_identity"]["kind"], "token");
  EXPECT_EQ(a["decided_by_identity"]["token_id"], id);
  EXPECT_EQ(a["decided_by_identity"]["roles"], json::array({"approver"}));
}

TEST_F(AuthTest, ASignedApprovalVerifiesOffTheNodeAndATamperedOneFails) {
  auto key = core::ed25519::SecretKey::Generate();
  const std::string public_key = core::Base64Encode(key.public_key().raw());
  const std::string approver = Token({access::Role::kApprover}, 3600, public_key);
  auto approval = runs_.GetApproval("7");
  ASSERT_TRUE(approval.ok());
  const std::string digest = approval->call_digest;

  const std::string decider = "token:" + approver.substr(4, 16);

  // This credential has a key: an unsigned decision, or one signed for
  // another call, by another key or for another decider, is refused.
  EXPECT_EQ(Call("POST", "/v1/approvals/7/approve", approver, "{}").status, 422);
  json other_call = access::SignApproval(key, true, "sha256:" + std::string(64, 'f'), decider);
  EXPECT_EQ(Call("POST", "/v1/approvals/7/approve", approver, json{{"signature", other_call}}.dump()).status, 422);
  auto stranger = core::ed25519::SecretKey::Generate();
  json by_stranger = access::SignApproval(stranger, true, digest, decider);
  EXPECT_EQ(Call("POST", "/v1/approvals/7/approve", approver, json{{"signature", by_stranger}}.dump()).status, 422);
  json deny_signature = access::SignApproval(key, false, digest, decider);  // signed "denied": not an approval
  EXPECT_EQ(Call("POST", "/v1/approvals/7/approve", approver, json{{"signature", deny_signature}}.dump()).status, 422);

  json signature = access::SignApproval(key, true, digest, decider);
  Response r = Call("POST", "/v1/approvals/7/approve", approver, json{{"signature", signature}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  json recorded = json::parse(r.body)["signature"];
  EXPECT_EQ(recorded["decider"], decider);
  EXPECT_EQ(recorded["statement"], "volent-approval/v2");
  // Off the node: the decision, the call digest, the decider and the approver's own key.
  EXPECT_TRUE(access::CheckApprovalSignature(recorded, true, digest, decider, public_key).ok());
  EXPECT_FALSE(access::CheckApprovalSignature(recorded, false, digest, decider, public_key).ok());
  EXPECT_FALSE(access::CheckApprovalSignature(recorded, true, "sha256:" + std::string(64, '1'), decider, public_key).ok());
  EXPECT_FALSE(access::CheckApprovalSignature(recorded, true, digest, "token:0123456789abcdef", public_key).ok());
  json tampered = recorded;
  std::string sig = *core::Base64Decode(tampered["sig"].get<std::string>(), "sig");
  sig[10] ^= 1;
  tampered["sig"] = core::Base64Encode(sig);
  EXPECT_FALSE(access::CheckApprovalSignature(tampered, true, digest, decider, public_key).ok());
}

// Alice's registered key cannot vouch for Bob's decision: not when Bob's
// token has no key, not when it has its own, whichever decider Alice's
// statement names; and a statement of the first form (no decider) is
// refused, saying why.
TEST_F(AuthTest, ASignatureSpeaksOnlyForTheCredentialWhoseRegisteredKeyMadeIt) {
  auto alice_key = core::ed25519::SecretKey::Generate();
  auto bob_key = core::ed25519::SecretKey::Generate();
  const std::string alice = Token({access::Role::kApprover}, 3600, core::Base64Encode(alice_key.public_key().raw()));
  const std::string bob_keyless = Token({access::Role::kApprover});
  const std::string bob = Token({access::Role::kApprover}, 3600, core::Base64Encode(bob_key.public_key().raw()));
  auto approval = runs_.GetApproval("7");
  ASSERT_TRUE(approval.ok());
  const std::string digest = approval->call_digest;
  auto decider = [](const std::string& token) { return "token:" + token.substr(4, 16); };
  auto decide = [&](const std::string& token, const json& signature) {
    return Call("POST", "/v1/approvals/7/approve", token, json{{"signature", signature}}.dump());
  };

  for (const std::string& named : {decider(alice), decider(bob_keyless)}) {
    Response r = decide(bob_keyless, access::SignApproval(alice_key, true, digest, named));
    EXPECT_EQ(r.status, 422) << named << ": " << r.body;
    EXPECT_NE(r.body.find("no registered approval key"), std::string::npos) << r.body;
  }
  for (const std::string& named : {decider(alice), decider(bob)}) {
    Response r = decide(bob, access::SignApproval(alice_key, true, digest, named));
    EXPECT_EQ(r.status, 422) << named << ": " << r.body;
  }
  // Bob's own key over a statement naming Alice: not Bob's decision.
  Response named_other = decide(bob, access::SignApproval(bob_key, true, digest, decider(alice)));
  EXPECT_EQ(named_other.status, 422);
  EXPECT_NE(named_other.body.find("names the decider"), std::string::npos) << named_other.body;

  // The first form: signed over "volent-approval/v1\napproved\n" DIGEST "\n".
  json first_form = {{"scheme", "ed25519"},
                     {"public_key", core::Base64Encode(alice_key.public_key().raw())},
                     {"sig", core::Base64Encode(alice_key.Sign("volent-approval/v1\napproved\n" + digest + "\n"))},
                     {"call_digest", digest}};
  Response old = decide(alice, first_form);
  EXPECT_EQ(old.status, 422);
  EXPECT_NE(old.body.find("first form (volent-approval/v1)"), std::string::npos) << old.body;

  EXPECT_TRUE(runs_.GetApproval("7")->decision.empty()) << "nothing above decided";
  Response r = decide(bob, access::SignApproval(bob_key, true, digest, decider(bob)));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["signature"]["decider"], decider(bob));
}

// The sum of failures and refusals over every auth-failures entry.
uint64_t Journaled(const std::vector<journal::Entry>& entries) {
  uint64_t counted = 0;
  for (const auto& e : entries) {
    json p = json::parse(e.payload);
    counted += p["failures"].get<uint64_t>() + p["refused"].get<uint64_t>();
  }
  return counted;
}

bool HasRetryAfter(const Response& r) {
  for (const auto& [name, value] : r.headers) {
    if (name == "Retry-After" && std::stoi(value) >= 1) return true;
  }
  return false;
}

TEST_F(AuthTest, BruteForceIsLimitedPerAddressAndJournaledInAggregate) {
  FailureLimits limits = Unlimited();
  limits.burst = 3;
  limits.per_second = 0.5;
  Build(limits);
  const std::string good = Token({access::Role::kReader});
  const std::string bad = "vlt_0000000000000000_" + std::string(64, 'b');
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Call("GET", "/v1/agents", bad, "", "198.51.100.7").status, 401);
  // Blocked now: a wrong credential, or none, is refused outright...
  for (const std::string& token : {bad, std::string()}) {
    Response r = Call("GET", "/v1/agents", token, "", "198.51.100.7");
    EXPECT_EQ(r.status, 429);
    EXPECT_TRUE(HasRetryAfter(r));
  }
  // ... but the right token is served from that very address.
  EXPECT_EQ(Call("GET", "/v1/agents", good, "", "198.51.100.7").status, 200);
  // Another address is not affected.
  EXPECT_EQ(Call("GET", "/v1/agents", bad, "", "198.51.100.8").status, 401);
  // Tries come back with time.
  now_ms_ += 2'000;
  EXPECT_EQ(Call("GET", "/v1/agents", bad, "", "198.51.100.7").status, 401);
  // Many failures, few entries: the first at once, the rest counted into
  // the next one, a minute later, or at the flush.
  for (int i = 0; i < 100; ++i) Call("GET", "/v1/agents", bad, "", "198.51.100.7");
  EXPECT_EQ(Entries(journal::EntryKind::kAuthFailures).size(), 1u);
  auth_->Flush();
  auto entries = Entries(journal::EntryKind::kAuthFailures);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(Journaled(entries), 3u + 2u + 1u + 1u + 100u);
  json last = json::parse(entries.back().payload);
  ASSERT_FALSE(last["top_addresses"].empty());
  EXPECT_EQ(last["top_addresses"][0]["address"], "198.51.100.7");
  EXPECT_EQ(last["top_ids"][0]["id"], "0000000000000000");
}

// An attacker sharing the operator's address (a NAT, a proxy, the sealed
// image's port forward) or aiming at the operator's token id keeps every
// limit reached; the operator's right token, or certificate, still works.
TEST_F(AuthTest, AValidCredentialIsNeverRefusedForTheFailuresOfOthers) {
  Build(FailureLimits{}, /*mtls=*/true);
  const std::string admin = Token({access::Role::kAdmin});
  const std::string id = admin.substr(access::kTokenPrefix.size(), access::kTokenIdHexDigits);
  const std::string wrong_secret = "vlt_" + id + "_" + std::string(64, 'e');
  const std::string unknown = "vlt_00000000000000aa_" + std::string(64, 'e');
  const std::string nobodys = "vlt_00000000000000bb_" + std::string(64, 'e');
  const std::string shared = "10.0.2.2";
  int refused = 0;
  for (int i = 0; i < 200; ++i) {
    // One more wrong token a "second" from the shared address, as the
    // attacker keeps going.
    now_ms_ += 1'000;
    refused += Call("GET", "/v1/agents", unknown, "", shared).status == 429;
    EXPECT_EQ(Call("GET", "/v1/agents", admin, "", shared).status, 200) << i;
    EXPECT_EQ(Call("GET", "/v1/agents", "", "", shared, /*certificate=*/true).status, 200) << i;
  }
  EXPECT_GT(refused, 50);  // half of them: one try back every two seconds
  // The operator's own id, guessed at from many addresses: its bucket
  // empties, wrong secrets for it are refused from anywhere...
  std::vector<int> known, other;
  for (int i = 0; i < 30; ++i) {
    known.push_back(Call("GET", "/v1/agents", wrong_secret, "", "203.0.113." + std::to_string(i)).status);
    other.push_back(Call("GET", "/v1/agents", nobodys, "", "203.0.114." + std::to_string(i)).status);
  }
  EXPECT_EQ(known.back(), 429);
  // ... exactly as for an id nobody has (nothing tells them apart) ...
  EXPECT_EQ(known, other);
  // ... and the right secret still works, from a fresh address and the shared one.
  EXPECT_EQ(Call("GET", "/v1/agents", admin, "", "203.0.113.200").status, 200);
  EXPECT_EQ(Call("GET", "/v1/agents", admin, "", shared).status, 200);
}

// Many addresses, each trying a few times, add up in the budget of all
// addresses; the journal gets one summary per interval whatever the number
// of addresses, and every failure is in it, also those of addresses
// forgotten to bound memory.
TEST_F(AuthTest, ManyAddressesMeetTheSharedBudgetAndTheJournalStaysBounded) {
  FailureLimits limits;
  limits.max_addresses = 64;
  Build(limits);
  const std::string good = Token({access::Role::kReader});
  uint64_t sent = 0, refused = 0;
  const int addresses = 3000;
  for (int i = 0; i < addresses; ++i) {
    std::string peer = "127." + std::to_string(i / 250 % 250) + "." + std::to_string(i % 250) + ".9";
    // A fresh id each time too: only the budget of all addresses is met.
    char id[17];
    std::snprintf(id, sizeof id, "%016x", i);
    const std::string bad = "vlt_" + std::string(id) + "_" + std::string(64, 'b');
    for (int k = 0; k < 2; ++k) {
      ++sent;
      refused += Call("GET", "/v1/agents", bad, "", peer).status == 429;
    }
    if (i == addresses / 2) now_ms_ += 60'000;  // one interval later
    if (i % 500 == 0) {
      EXPECT_EQ(Call("GET", "/v1/agents", good, "", peer).status, 200) << i;
    }
  }
  EXPECT_GT(refused, sent / 2);
  auto before = Entries(journal::EntryKind::kAuthFailures);
  EXPECT_LE(before.size(), 2u);  // the first at once, one an interval later
  auth_->Flush();
  auto entries = Entries(journal::EntryKind::kAuthFailures);
  EXPECT_LE(entries.size(), 3u);
  EXPECT_EQ(Journaled(entries), sent);
  uint64_t addresses_counted = 0;
  for (const auto& e : entries) {
    json p = json::parse(e.payload);
    addresses_counted += p["addresses"].get<uint64_t>();
    EXPECT_LE(p["top_addresses"].size(), limits.report_top);
  }
  EXPECT_GE(addresses_counted, static_cast<uint64_t>(addresses));
}

TEST_F(AuthTest, CredentialsAreJournaledAndNoTokenLeaves) {
  const std::string admin = Token({access::Role::kAdmin});
  Response made = Call("POST", "/v1/credentials", admin, R"({"name":"alice","roles":["approver"],"ttl_seconds":600})");
  ASSERT_EQ(made.status, 201) << made.body;
  json body = json::parse(made.body);
  const std::string token = body["token"];
  tokens_.push_back(token);
  EXPECT_EQ(body["state"], "active");
  EXPECT_EQ(Call("GET", "/v1/approvals", token).status, 200);
  EXPECT_EQ(Call("POST", "/v1/credentials/" + body["id"].get<std::string>() + "/revoke", admin).status, 200);
  EXPECT_EQ(Call("GET", "/v1/approvals", token).status, 401);
  EXPECT_EQ(Call("POST", "/v1/credentials/" + body["id"].get<std::string>() + "/revoke", admin).status, 409);
  // Bad requests: named fields.
  EXPECT_EQ(Call("POST", "/v1/credentials", admin, R"({"name":"x","roles":["root"]})").status, 422);
  EXPECT_EQ(Call("POST", "/v1/credentials", admin, R"({"name":"x","roles":["reader"],"ttl_seconds":0})").status, 422);
  EXPECT_EQ(Call("POST", "/v1/credentials", admin, R"({"name":"x","roles":["reader"],"approval_key":"AAAA"})").status,
            422);

  auto created = Entries(journal::EntryKind::kCredentialCreated);
  auto revoked = Entries(journal::EntryKind::kCredentialRevoked);
  ASSERT_EQ(created.size(), 1u);
  ASSERT_EQ(revoked.size(), 1u);
  json c = json::parse(created[0].payload);
  EXPECT_EQ(c["name"], "alice");
  EXPECT_EQ(c["by"]["token_id"], admin.substr(4, 16));

  // No token text (or its secret half) anywhere but in its creation's answer.
  std::string everything = Call("GET", "/v1/credentials", admin).body + Call("GET", "/v1/journal?limit=1000", admin).body;
  for (const auto& e : Entries(journal::EntryKind::kCredentialCreated)) everything += e.payload;
  for (const std::string& t : tokens_) {
    EXPECT_EQ(everything.find(t.substr(21)), std::string::npos);
  }
}

TEST_F(AuthTest, CredentialsSurviveAReopenAndABadFileStopsTheNode) {
  const std::string token = Token({access::Role::kReader});
  auto again = access::CredentialStore::Open(dir_, [this] { return now_ms_; });
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->Check(token).verdict, access::TokenVerdict::kValid);
  EXPECT_FALSE((*again)->fresh());
  ASSERT_TRUE(core::WriteFileAtomically(dir_ + "/" + access::kCredentialsFile, "{\"version\":1,", 0600).ok());
  EXPECT_FALSE(access::CredentialStore::Open(dir_).ok());
}

TEST_F(AuthTest, DevelopmentModeLetsEverythingThroughAndSaysSo) {
  AuthOptions o;
  o.development_no_auth = true;
  Authenticator dev(o);
  EXPECT_EQ(dev.mode(), "none (development)");
  Request r;
  auto who = dev.Authenticate(r);
  ASSERT_TRUE(std::holds_alternative<access::Principal>(who));
  EXPECT_TRUE(std::get<access::Principal>(who).Allows(access::Role::kAdmin));
}

}  // namespace
}  // namespace volent::control
