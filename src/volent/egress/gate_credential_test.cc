// Credentials through the egress gate (gate.h, "Credentials"): the header
// reaches the service of the entry that names it, with its value, and
// nothing else; a caller that sets it is denied; a redirect to another
// origin goes without it; a service echoing it gives the caller the mark,
// not the value; no denial and no answer holds the value.
#include "volent/egress/gate.h"

#include <gtest/gtest.h>

#include <mutex>

#include "volent/egress/test_http_server.h"

namespace volent::egress {
namespace {

using testing::Reply;
using testing::Seen;
using testing::TestServer;

constexpr char kSecret[] = "orders-token-7f3a9c1e";

Credentials Orders(std::string header = "Authorization", std::string prefix = "Bearer ") {
  Credentials out;
  out["orders"] = {"orders", header, prefix + kSecret, kSecret};
  return out;
}

manifest::AllowEntry Entry(const TestServer& server, std::string credential, std::string capability = "orders") {
  manifest::AllowEntry entry{std::move(capability), "http", "", server.HostPort().substr(0, server.HostPort().find(':')) + "/32",
                             server.port(), "", {}};
  entry.credential = std::move(credential);
  return entry;
}

struct Sink {
  std::mutex mutex;
  std::vector<Denial> denials;
  DenialSink Fn() {
    return [this](const Denial& d) {
      std::lock_guard<std::mutex> lock(mutex);
      denials.push_back(d);
    };
  }
  std::vector<Denial> Get() {
    std::lock_guard<std::mutex> lock(mutex);
    return denials;
  }
};

GateOptions With(Credentials credentials, Sink* sink = nullptr) {
  GateOptions options;
  options.credentials = std::move(credentials);
  if (sink) options.on_denial = sink->Fn();
  return options;
}

HttpRequest Get(std::string url, Headers headers = {}) {
  HttpRequest r;
  r.url = std::move(url);
  r.headers = std::move(headers);
  r.origin = "agent/run-1/2";
  return r;
}

bool Holds(const SendResult& r, std::string_view text) {
  if (r.reason.find(text) != std::string::npos || r.response.body.find(text) != std::string::npos) return true;
  for (const auto& [n, v] : r.response.headers) {
    if (n.find(text) != std::string::npos || v.find(text) != std::string::npos) return true;
  }
  for (const auto& u : r.redirects) {
    if (u.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(GateCredential, TheHeaderReachesTheServiceWithItsValue) {
  TestServer server;
  Gate gate({Entry(server, "orders")}, With(Orders()));
  SendResult r = gate.Send("orders", Get(server.Url("/api/orders/7")));
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  EXPECT_EQ(r.credential, "orders");
  ASSERT_EQ(server.Requests().size(), 1u);
  EXPECT_EQ(server.Requests()[0].Get("Authorization"), std::string("Bearer ") + kSecret);
  EXPECT_EQ(server.Requests()[0].Count("Authorization"), 1u);
  EXPECT_FALSE(Holds(r, kSecret));
}

TEST(GateCredential, OnlyTheEntryNamingItAddsIt) {
  // The same server under two capabilities: only the one whose entry names
  // the credential carries it.
  TestServer server;
  Gate gate({Entry(server, "orders"), Entry(server, "", "public")}, With(Orders()));
  SendResult r = gate.Send("public", Get(server.Url("/")));
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  EXPECT_EQ(r.credential, "");
  ASSERT_EQ(server.Requests().size(), 1u);
  EXPECT_FALSE(server.Requests()[0].Has("Authorization"));
}

TEST(GateCredential, ACallerSettingTheHeaderIsDeniedAndNothingIsSent) {
  TestServer server;
  Sink sink;
  Gate gate({Entry(server, "orders")}, With(Orders(), &sink));
  for (const char* name : {"Authorization", "authorization", "AUTHORIZATION"}) {
    SendResult r = gate.Send("orders", Get(server.Url("/"), {{name, "Bearer mine"}}));
    EXPECT_EQ(r.outcome, Outcome::kDenied) << name;
    EXPECT_NE(r.reason.find("credential \"orders\""), std::string::npos) << r.reason;
    EXPECT_EQ(r.credential, "");
  }
  EXPECT_TRUE(server.Requests().empty()) << "a request setting the credential's header was sent";
  ASSERT_EQ(sink.Get().size(), 3u);
  for (const Denial& d : sink.Get()) EXPECT_EQ(d.reason.find(kSecret), std::string::npos);
  // Another header is the caller's to set.
  Gate api_key({Entry(server, "orders")}, With(Orders("X-Api-Key", "")));
  SendResult r = api_key.Send("orders", Get(server.Url("/"), {{"Authorization", "Basic abc"}}));
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  ASSERT_EQ(server.Requests().size(), 1u);
  EXPECT_EQ(server.Requests()[0].Get("X-Api-Key"), kSecret);
  EXPECT_EQ(server.Requests()[0].Get("Authorization"), "Basic abc");
}

TEST(GateCredential, ARedirectToAnotherOriginGoesWithoutIt) {
  // b is allowed (even under the same credential, by another entry), but is
  // not the origin the caller named: it never sees the secret.
  for (int status : {301, 302, 303, 307, 308}) {
    for (bool b_names_it : {false, true}) {
      TestServer b("127.0.0.2");
      TestServer a("127.0.0.1", [&b, status](const Seen&) {
        Reply reply;
        reply.status = status;
        reply.headers = {{"Location", b.Url("/landed")}};
        return reply;
      });
      Gate gate({Entry(a, "orders"), Entry(b, b_names_it ? "orders" : "")}, With(Orders()));
      SendResult r = gate.Send("orders", Get(a.Url("/start")));
      ASSERT_EQ(r.outcome, Outcome::kAnswered) << status << ": " << r.reason;
      ASSERT_EQ(a.Requests().size(), 1u);
      EXPECT_EQ(a.Requests()[0].Get("Authorization"), std::string("Bearer ") + kSecret);
      ASSERT_EQ(b.Requests().size(), 1u) << status;
      EXPECT_FALSE(b.Requests()[0].Has("Authorization")) << status << ": the credential followed a redirect";
      EXPECT_EQ(r.credential, "orders");
    }
  }
}

TEST(GateCredential, ARedirectWithinTheOriginKeepsIt) {
  TestServer a("127.0.0.1", [](const Seen& seen) {
    Reply reply;
    if (seen.target == "/start") {
      reply.status = 307;
      reply.headers = {{"Location", "/landed"}};
    }
    return reply;
  });
  Gate gate({Entry(a, "orders")}, With(Orders()));
  SendResult r = gate.Send("orders", Get(a.Url("/start")));
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  ASSERT_EQ(a.Requests().size(), 2u);
  for (const Seen& seen : a.Requests()) {
    EXPECT_EQ(seen.Get("Authorization"), std::string("Bearer ") + kSecret) << seen.target;
  }
}

TEST(GateCredential, AnEchoGivesTheCallerTheMarkNotTheValue) {
  // A service that reflects the request (headers into its body and into a
  // header of its answer, and into a redirect's Location).
  TestServer echo("127.0.0.1", [](const Seen& seen) {
    Reply reply;
    if (seen.target == "/redirect") {
      reply.status = 302;
      reply.headers = {{"Location", "/landed?auth=" + seen.Get("Authorization").substr(7)}};
      return reply;
    }
    reply.headers = {{"X-Echo", seen.Get("Authorization")}};
    reply.body = "you sent " + seen.Get("Authorization") + " to " + seen.target;
    return reply;
  });
  Sink sink;
  Gate gate({Entry(echo, "orders")}, With(Orders(), &sink));
  SendResult r = gate.Send("orders", Get(echo.Url("/echo")));
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  EXPECT_EQ(r.response.body, "you sent Bearer [credential orders] to /echo");
  EXPECT_FALSE(Holds(r, kSecret));
  EXPECT_TRUE(sink.Get().empty());
  // The Location is read after the mark replaced the secret: whether the
  // redirect is then followed or refused, the secret leaves in no URL.
  r = gate.Send("orders", Get(echo.Url("/redirect")));
  EXPECT_FALSE(Holds(r, kSecret)) << r.reason << r.response.body;
  ASSERT_EQ(r.redirects.size(), 1u);
  EXPECT_EQ(r.redirects[0].find(kSecret), std::string::npos) << r.redirects[0];
  for (const Denial& d : sink.Get()) {
    EXPECT_EQ(d.url.find(kSecret), std::string::npos) << d.url;
    EXPECT_EQ(d.reason.find(kSecret), std::string::npos) << d.reason;
  }
  for (const Seen& seen : echo.Requests()) EXPECT_EQ(seen.target.find(kSecret), std::string::npos) << seen.target;
}

TEST(GateCredential, AnEntryNamingACredentialNotLoadedAllowsNothing) {
  TestServer server;
  Sink sink;
  Gate gate({Entry(server, "missing")}, With(Orders(), &sink));
  SendResult r = gate.Send("orders", Get(server.Url("/")));
  EXPECT_EQ(r.outcome, Outcome::kDenied);
  EXPECT_NE(r.reason.find("credential \"missing\""), std::string::npos) << r.reason;
  EXPECT_TRUE(server.Requests().empty());
  EXPECT_EQ(sink.Get().size(), 1u);
}

TEST(GateCredential, AFailureNamesItWithoutTheValue) {
  // Allowed, sent, never answered: the result still names the credential.
  TestServer silent("127.0.0.1", [](const Seen&) {
    Reply reply;
    reply.silent = true;
    return reply;
  });
  Gate gate({Entry(silent, "orders")}, With(Orders()));
  HttpRequest request = Get(silent.Url("/"));
  request.timeout_ms = 300;
  SendResult r = gate.Send("orders", request);
  EXPECT_EQ(r.outcome, Outcome::kFailed) << r.reason;
  EXPECT_EQ(r.credential, "orders");
  EXPECT_FALSE(Holds(r, kSecret));
}

}  // namespace
}  // namespace volent::egress
