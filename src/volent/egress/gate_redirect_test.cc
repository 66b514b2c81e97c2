// Redirects through the egress gate (gate.h): each hop judged from the top,
// the method and body rules, credentials dropped when leaving the origin, the
// hop limit, relative Locations, and the denial sink. Two "hosts" on
// loopback: 127.0.0.1 and 127.0.0.2, reachable only through cidr entries.
#include "volent/egress/gate.h"

#include <gtest/gtest.h>

#include <mutex>

#include "volent/egress/test_dns_server.h"
#include "volent/egress/test_http_server.h"

namespace volent::egress {
namespace {

using testing::Reply;
using testing::Seen;
using testing::TestServer;

// A server that redirects every request with `status` to `location`.
TestServer::Handler RedirectTo(int status, std::string location) {
  return [status, location](const Seen&) {
    Reply r;
    r.status = status;
    r.headers = {{"Location", location}};
    r.body = "";
    return r;
  };
}

// Records denials.
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

// Loopback is reachable only through a cidr entry, and an entry names one
// port (0: the scheme's default), so one entry per test server.
std::vector<manifest::AllowEntry> Loopback(std::vector<int> ports) {
  std::vector<manifest::AllowEntry> out;
  for (int port : ports) out.push_back({"local", "http", "", "127.0.0.0/8", port, "", {}});
  return out;
}

manifest::AllowEntry Entry(std::string cidr, int port) { return {"local", "http", "", std::move(cidr), port, "", {}}; }

GateOptions WithSink(Sink& sink, int max_redirects = 5) {
  GateOptions options;
  options.max_redirects = max_redirects;
  options.on_denial = sink.Fn();
  return options;
}

HttpRequest Get(std::string url) {
  HttpRequest r;
  r.url = std::move(url);
  r.origin = "agent/run-1/2";
  return r;
}

TEST(GateRedirect, EveryRedirectStatusIsFollowedToAnAllowedTarget) {
  for (int status : {301, 302, 303, 307, 308}) {
    TestServer b("127.0.0.2");
    TestServer a("127.0.0.1", RedirectTo(status, b.Url("/landed?x=1")));
    Sink sink;
    Gate gate(Loopback({a.port(), b.port()}), WithSink(sink));
    SendResult r = gate.Send("local", Get(a.Url("/start")));
    ASSERT_EQ(r.outcome, Outcome::kAnswered) << status << ": " << r.reason;
    EXPECT_EQ(r.response.status, 200);
    EXPECT_EQ(r.response.body, "hello");
    EXPECT_EQ(r.pinned_address, "127.0.0.2:" + std::to_string(b.port()));
    EXPECT_EQ(r.redirects, std::vector<std::string>{b.Url("/landed?x=1")});
    ASSERT_EQ(b.Requests().size(), 1u);
    EXPECT_EQ(b.Requests()[0].target, "/landed?x=1");
    EXPECT_EQ(b.Requests()[0].Get("Host"), "127.0.0.2:" + std::to_string(b.port()));
    EXPECT_TRUE(sink.Get().empty()) << "an allowed request reached the denial sink";
  }
}

TEST(GateRedirect, RedirectOutsideTheAllowlistIsDenied) {
  for (int status : {301, 302, 303, 307, 308}) {
    TestServer b("127.0.0.2");
    TestServer a("127.0.0.1", RedirectTo(status, b.Url("/elsewhere")));
    Sink sink;
    Gate gate({Entry("127.0.0.1/32", a.port())}, WithSink(sink));
    SendResult r = gate.Send("local", Get(a.Url("/start")));
    EXPECT_EQ(r.outcome, Outcome::kDenied) << status;
    EXPECT_NE(r.reason.find("redirect 1 (" + b.Url("/elsewhere") + "): "), std::string::npos) << r.reason;
    EXPECT_TRUE(r.pinned_address.empty());
    EXPECT_EQ(r.response.status, 0);
    EXPECT_EQ(r.redirects, std::vector<std::string>{b.Url("/elsewhere")});
    EXPECT_TRUE(b.Requests().empty()) << "a denied redirect reached its target";
    std::vector<Denial> denials = sink.Get();
    ASSERT_EQ(denials.size(), 1u) << status;
    EXPECT_EQ(denials[0].capability, "local");
    EXPECT_EQ(denials[0].method, "GET");
    EXPECT_EQ(denials[0].url, b.Url("/elsewhere"));
    EXPECT_EQ(denials[0].origin, "agent/run-1/2");
    EXPECT_EQ(denials[0].hop, 1);
    EXPECT_EQ(denials[0].reason, r.reason);
  }
}

TEST(GateRedirect, RedirectToAForbiddenAddressIsDenied) {
  TestServer b("127.0.0.2");
  for (const std::string& target :
       {b.Url("/x"), std::string("http://169.254.169.254/latest/meta-data/"), std::string("http://10.0.0.7/"),
        std::string("http://[::ffff:127.0.0.2]:") + std::to_string(b.port()) + "/", std::string("http://[::1]/")}) {
    TestServer a("127.0.0.1", RedirectTo(302, target));
    Sink sink;
    // A host entry for "*" would allow any public address, but no forbidden one.
    Gate gate({Entry("127.0.0.1/32", a.port()), {"local", "http", "*", "", 0, "", {}},
               {"local", "http", "*", "", b.port(), "", {}}},
              WithSink(sink));
    SendResult r = gate.Send("local", Get(a.Url()));
    EXPECT_EQ(r.outcome, Outcome::kDenied) << target;
    const bool named_class = r.reason.find("loopback") != std::string::npos ||
                             r.reason.find("cloud-metadata") != std::string::npos ||
                             r.reason.find("private") != std::string::npos;
    EXPECT_TRUE(named_class) << r.reason;
    ASSERT_EQ(sink.Get().size(), 1u);
    EXPECT_EQ(sink.Get()[0].hop, 1);
    EXPECT_EQ(sink.Get()[0].url, target);
  }
  EXPECT_TRUE(b.Requests().empty());
}

TEST(GateRedirect, RedirectToAnotherSchemeOrAnOddUrlIsDenied) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"file:///etc/passwd", "scheme \"file\""},
      {"ftp://127.0.0.1/", "scheme \"ftp\""},
      {"gopher://127.0.0.1:70/_x", "scheme \"gopher\""},
      {"https://127.0.0.1/", "scheme"},  // the allowlist has http only
      {"http://0x7f.1/", "canonical"},
      {"http://user@127.0.0.1/", "user information"},
      {"/\\evil.example/", "backslash"},
      {"http://127.0.0.1/a/../admin", "\"..\""},
      {"1nope:x", "neither an absolute URL"},
  };
  for (const auto& [location, why] : cases) {
    TestServer a("127.0.0.1", RedirectTo(301, location));
    Sink sink;
    Gate gate(Loopback({a.port(), 80}), WithSink(sink));
    SendResult r = gate.Send("local", Get(a.Url()));
    EXPECT_EQ(r.outcome, Outcome::kDenied) << location;
    EXPECT_NE(r.reason.find(why), std::string::npos) << location << ": " << r.reason;
    EXPECT_EQ(r.redirects.size(), 1u);
    ASSERT_EQ(sink.Get().size(), 1u) << location;
    EXPECT_EQ(sink.Get()[0].hop, 1);
    EXPECT_EQ(a.Requests().size(), 1u) << location;
  }
}

struct MethodCase {
  int status;
  std::string method;
  std::string want_method;
  bool keeps_body;
};

TEST(GateRedirect, NamesAreResolvedAndJudgedOnEveryHop) {
  testing::TestDnsServer dns;
  ASSERT_TRUE(dns.ok());
  dns.Set("inside.test", {testing::DnsRecord::A("10.0.0.7")});
  TestServer b("127.0.0.2");
  dns.Set("second.test", {testing::DnsRecord::A("127.0.0.2")});
  for (const auto& [target, allowed] :
       std::vector<std::pair<std::string, bool>>{{"http://inside.test/", false},
                                                 {"http://second.test:" + std::to_string(b.port()) + "/ok", true}}) {
    TestServer a("127.0.0.1", RedirectTo(302, target));
    Sink sink;
    GateOptions options = WithSink(sink);
    options.dns_server = dns.address();
    // "*" reaches any public address; the names here resolve to forbidden
    // ones, which only the cidr entries open (127.0.0.0/8, not 10.0.0.0/8).
    std::vector<manifest::AllowEntry> allow = Loopback({a.port(), b.port()});
    allow.push_back({"local", "http", "*", "", 0, "", {}});
    Gate gate(allow, options);
    SendResult r = gate.Send("local", Get(a.Url()));
    if (allowed) {
      ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
      EXPECT_EQ(r.pinned_address, "127.0.0.2:" + std::to_string(b.port()));
      EXPECT_TRUE(sink.Get().empty());
    } else {
      EXPECT_EQ(r.outcome, Outcome::kDenied);
      EXPECT_NE(r.reason.find("10.0.0.7 is private"), std::string::npos) << r.reason;
      ASSERT_EQ(sink.Get().size(), 1u);
      EXPECT_EQ(sink.Get()[0].url, "http://inside.test/");
    }
  }
  EXPECT_EQ(b.Requests().size(), 1u);
}

TEST(GateRedirect, MethodAndBodyRules) {
  const std::vector<MethodCase> cases = {
      {303, "POST", "GET", false}, {303, "PUT", "GET", false},   {303, "HEAD", "HEAD", false},
      {301, "POST", "GET", false}, {302, "POST", "GET", false},  {302, "PUT", "PUT", true},
      {301, "DELETE", "DELETE", false}, {307, "POST", "POST", true}, {308, "POST", "POST", true},
      {307, "PUT", "PUT", true},
  };
  for (const MethodCase& c : cases) {
    TestServer b("127.0.0.2");
    TestServer a("127.0.0.1", RedirectTo(c.status, b.Url("/next")));
    Gate gate(Loopback({a.port(), b.port()}));
    HttpRequest request = Get(a.Url("/first"));
    request.method = c.method;
    if (c.method != "HEAD" && c.method != "DELETE") request.body = "{\"n\":1}";
    request.headers = {{"Content-Type", "application/json"}, {"Idempotency-Key", "k-1"}};
    SendResult r = gate.Send("local", request);
    const std::string label = std::to_string(c.status) + " after " + c.method;
    ASSERT_EQ(r.outcome, Outcome::kAnswered) << label << ": " << r.reason;
    ASSERT_EQ(b.Requests().size(), 1u) << label;
    const Seen seen = b.Requests()[0];
    EXPECT_EQ(seen.method, c.want_method) << label;
    EXPECT_EQ(seen.Get("Idempotency-Key"), "k-1") << label;
    if (c.keeps_body) {
      EXPECT_EQ(seen.body, "{\"n\":1}") << label;
      EXPECT_EQ(seen.Get("Content-Type"), "application/json") << label;
      EXPECT_EQ(seen.Get("Content-Length"), "7") << label;
    } else {
      EXPECT_EQ(seen.body, "") << label;
      if (c.want_method != c.method) {
        EXPECT_FALSE(seen.Has("Content-Type")) << label;
        EXPECT_FALSE(seen.Has("Content-Length")) << label;
      }
    }
  }
}

TEST(GateRedirect, CredentialsStayWithinTheOrigin) {
  const Headers credentials = {{"Authorization", "Bearer secret"}, {"cookie", "s=1"}, {"X-API-Key", "k"},
                               {"Idempotency-Key", "k-2"},          {"Accept", "text/plain"}};
  {  // same scheme, host and port: kept
    TestServer a("127.0.0.1", [](const Seen& seen) {
      if (seen.target == "/second") return Reply{};
      return Reply{302, {{"Location", "/second"}}, ""};
    });
    HttpRequest request = Get(a.Url("/first"));
    request.headers = credentials;
    SendResult r = Gate(Loopback({a.port()})).Send("local", request);
    ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
    ASSERT_EQ(a.Requests().size(), 2u);
    const Seen second = a.Requests()[1];
    EXPECT_EQ(second.target, "/second");
    EXPECT_EQ(second.Get("Authorization"), "Bearer secret");
    EXPECT_EQ(second.Get("Cookie"), "s=1");
    EXPECT_EQ(second.Get("X-Api-Key"), "k");
  }
  for (const std::string host : {"127.0.0.2", "127.0.0.1"}) {  // another host; the same host on another port
    TestServer b(host);
    TestServer a("127.0.0.1", RedirectTo(307, b.Url("/other")));
    HttpRequest request = Get(a.Url("/first"));
    request.headers = credentials;
    SendResult r = Gate(Loopback({a.port(), b.port()})).Send("local", request);
    ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
    ASSERT_EQ(a.Requests().size(), 1u);
    EXPECT_EQ(a.Requests()[0].Get("Authorization"), "Bearer secret");
    ASSERT_EQ(b.Requests().size(), 1u);
    const Seen other = b.Requests()[0];
    EXPECT_FALSE(other.Has("Authorization")) << host;
    EXPECT_FALSE(other.Has("Cookie")) << host;
    EXPECT_FALSE(other.Has("X-Api-Key")) << host;
    EXPECT_EQ(other.Get("Idempotency-Key"), "k-2");
    EXPECT_EQ(other.Get("Accept"), "text/plain");
  }
}

TEST(GateRedirect, TheHopLimit) {
  TestServer loop("127.0.0.1", [](const Seen& seen) {
    return Reply{302, {{"Location", "/hop" + std::to_string(seen.target.size())}}, ""};
  });
  Sink sink;
  Gate gate(Loopback({loop.port()}), WithSink(sink, 2));

  HttpRequest request = Get(loop.Url("/"));
  request.max_redirects = 3;
  SendResult r = gate.Send("local", request);
  EXPECT_EQ(r.outcome, Outcome::kFailed);
  EXPECT_NE(r.reason.find("stopped after 3 redirects (the limit)"), std::string::npos) << r.reason;
  EXPECT_EQ(r.redirects.size(), 3u);
  EXPECT_EQ(r.response.status, 302);
  EXPECT_EQ(loop.Requests().size(), 4u);  // the request and 3 redirects

  r = gate.Send("local", Get(loop.Url("/")));  // -1: the gate's 2
  EXPECT_EQ(r.outcome, Outcome::kFailed);
  EXPECT_NE(r.reason.find("stopped after 2 redirects"), std::string::npos) << r.reason;
  EXPECT_EQ(r.redirects.size(), 2u);
  EXPECT_EQ(loop.Requests().size(), 7u);

  request.max_redirects = 0;  // not followed: the 3xx is the answer
  r = gate.Send("local", request);
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  EXPECT_EQ(r.response.status, 302);
  EXPECT_TRUE(r.redirects.empty());
  EXPECT_EQ(loop.Requests().size(), 8u);

  request.max_redirects = -2;
  EXPECT_EQ(gate.Send("local", request).outcome, Outcome::kDenied);
  ASSERT_EQ(sink.Get().size(), 1u);  // only that one: the limit is not a denial
  EXPECT_EQ(sink.Get()[0].hop, 0);
}

TEST(GateRedirect, RelativeLocations) {
  TestServer b("127.0.0.2");
  TestServer a("127.0.0.1", [&b](const Seen& seen) {
    if (seen.target == "/dir/start") return Reply{302, {{"Location", "next?a=1"}}, ""};
    if (seen.target == "/dir/next?a=1") return Reply{302, {{"Location", "../up/./there#frag"}}, ""};
    if (seen.target == "/up/there") return Reply{302, {{"Location", "?q=2"}}, ""};
    if (seen.target == "/up/there?q=2") return Reply{302, {{"Location", "/abs"}}, ""};
    if (seen.target == "/abs") return Reply{302, {{"Location", "//127.0.0.2:" + std::to_string(b.port()) + "/net"}}, ""};
    return Reply{404, {}, "unexpected"};
  });
  SendResult r = Gate(Loopback({a.port(), b.port()})).Send("local", Get(a.Url("/dir/start")));
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  EXPECT_EQ(r.response.status, 200);
  EXPECT_EQ(r.redirects, (std::vector<std::string>{a.Url("/dir/next?a=1"), a.Url("/up/there"), a.Url("/up/there?q=2"),
                                                   a.Url("/abs"), b.Url("/net")}));
  ASSERT_EQ(b.Requests().size(), 1u);
  EXPECT_EQ(b.Requests()[0].target, "/net");
}

TEST(GateRedirect, OtherStatusesAndMissingLocationAreAnswers) {
  for (int status : {300, 304, 305, 306}) {
    TestServer a("127.0.0.1", RedirectTo(status, "http://127.0.0.2/"));
    SendResult r = Gate(Loopback({a.port()})).Send("local", Get(a.Url()));
    ASSERT_EQ(r.outcome, Outcome::kAnswered) << status << ": " << r.reason;
    EXPECT_EQ(r.response.status, status);
    EXPECT_TRUE(r.redirects.empty());
  }
  TestServer a("127.0.0.1", [](const Seen&) { return Reply{302, {}, "no location"}; });
  SendResult r = Gate(Loopback({a.port()})).Send("local", Get(a.Url()));
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  EXPECT_EQ(r.response.status, 302);
}

TEST(GateRedirect, TwoLocationsAreDenied) {
  TestServer a("127.0.0.1", [](const Seen&) {
    return Reply{302, {{"Location", "/a"}, {"Location", "http://127.0.0.2/"}}, ""};
  });
  SendResult r = Gate(Loopback({a.port()})).Send("local", Get(a.Url()));
  EXPECT_EQ(r.outcome, Outcome::kDenied);
  EXPECT_NE(r.reason.find("2 Location headers"), std::string::npos) << r.reason;
}

TEST(GateRedirect, ALaterHopThatCannotConnectHasFailedNotNotSent) {
  int closed = 0;
  {
    TestServer gone("127.0.0.2");
    closed = gone.port();
  }
  TestServer a("127.0.0.1", RedirectTo(307, "http://127.0.0.2:" + std::to_string(closed) + "/"));
  HttpRequest request = Get(a.Url());
  request.method = "POST";
  request.body = "x";
  SendResult r = Gate(Loopback({a.port(), closed})).Send("local", request);
  // The first hop reached its server: a retry is not free of effects.
  EXPECT_EQ(r.outcome, Outcome::kFailed) << r.reason;
  EXPECT_NE(r.reason.find("redirect 1 ("), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("could not connect"), std::string::npos) << r.reason;
}

TEST(GateRedirect, TheTimeLimitCoversEveryHop) {
  TestServer silent("127.0.0.2", [](const Seen&) {
    Reply r;
    r.silent = true;
    return r;
  });
  TestServer a("127.0.0.1", RedirectTo(302, silent.Url("/")));
  HttpRequest request = Get(a.Url());
  request.timeout_ms = 500;
  SendResult r = Gate(Loopback({a.port(), silent.port()})).Send("local", request);
  EXPECT_EQ(r.outcome, Outcome::kFailed);
  EXPECT_NE(r.reason.find("time limit"), std::string::npos) << r.reason;
  EXPECT_EQ(silent.Requests().size(), 1u);
}

TEST(GateDenialSink, CalledOnceForEachDenialAndNeverForTheRest) {
  TestServer a("127.0.0.1");
  Sink sink;
  Gate gate({Entry("127.0.0.1/32", a.port()), {"other", "http", "*", "", 0, "", {"GET"}}}, WithSink(sink));

  EXPECT_EQ(gate.Send("local", Get(a.Url("/ok"))).outcome, Outcome::kAnswered);
  int closed = 0;
  {
    TestServer gone("127.0.0.1");
    closed = gone.port();
  }
  EXPECT_TRUE(sink.Get().empty());

  HttpRequest bad = Get("http://0177.0.0.1/");
  bad.origin = "a/r/1";
  EXPECT_EQ(gate.Send("local", bad).outcome, Outcome::kDenied);
  HttpRequest post = Get(a.Url("/p"));
  post.method = "POST";
  post.origin = "a/r/2";
  EXPECT_EQ(gate.Send("other", post).outcome, Outcome::kDenied);
  HttpRequest metadata = Get("http://169.254.169.254/");
  metadata.origin = "";
  EXPECT_EQ(gate.Send("other", metadata).outcome, Outcome::kDenied);
  HttpRequest injected = Get(a.Url());
  injected.headers = {{"X-A", "1\r\nX-B: 2"}};
  EXPECT_EQ(gate.Send("local", injected).outcome, Outcome::kDenied);
  // Allowed but not answered: not a denial.
  EXPECT_EQ(Gate({Entry("127.0.0.1/32", closed)}, WithSink(sink))
                .Send("local", Get("http://127.0.0.1:" + std::to_string(closed) + "/"))
                .outcome,
            Outcome::kNotSent);

  std::vector<Denial> d = sink.Get();
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].url, "http://0177.0.0.1/");
  EXPECT_EQ(d[0].origin, "a/r/1");
  EXPECT_EQ(d[0].capability, "local");
  EXPECT_NE(d[0].reason.find("canonical"), std::string::npos);
  EXPECT_EQ(d[1].method, "POST");
  EXPECT_EQ(d[1].capability, "other");
  EXPECT_EQ(d[1].origin, "a/r/2");
  EXPECT_NE(d[2].reason.find("cloud-metadata"), std::string::npos) << d[2].reason;
  EXPECT_EQ(d[2].origin, "");
  EXPECT_NE(d[3].reason.find("CR, LF or NUL"), std::string::npos);
  for (const Denial& denial : d) EXPECT_EQ(denial.hop, 0);
}

}  // namespace
}  // namespace volent::egress
