// The SSRF suite (docs/egress.md, "The SSRF suite"): attacks on the
// real egress gate, each of which must be denied, say why, be journaled as
// an "egress-denied" entry, and reach nothing it targeted.
//
// The setting, all on loopback:
//   - a test DNS server (test_dns_server.h) the gate is pointed at
//     (GateOptions::dns_server): public.test is 127.0.0.2, internal.test is
//     10.0.0.5, loop.test and localhost are 127.0.0.1, and so on (Names());
//   - the "allowed" HTTP server (test_http_server.h) on 127.0.0.2:A,
//     reachable only through the allowlist entry `cidr: 127.0.0.2/32` (host
//     patterns never reach loopback); it answers /r/CODE/KEY with a redirect
//     to a named target;
//   - "victim" HTTP servers on 127.0.0.1:V, 127.0.0.1:A and, when the
//     machine has IPv6 loopback, [::1]:V and [::1]:A: every attack aims at
//     one of them (or at an address nobody listens on), and they must see
//     no connection at all;
//   - a journal in a temporary folder, with agent::JournalDenials as the
//     gate's denial sink; each case's request has the origin
//     "ssrf/case-NN/1", the key its journal entry is found under.
//
// Each case is one test (Cases/Ssrf.Denied/NAME, a fresh setting each); the
// last tests run them all in one setting, through Send and then through
// SendAsync (key ".../2"), and print the count.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "volent/agent/denial_journal.h"
#include "volent/egress/gate.h"
#include "volent/egress/test_dns_server.h"
#include "volent/egress/test_http_server.h"
#include "volent/journal/journal.h"

namespace volent::egress {
namespace {

using testing::DnsRecord;
using testing::Reply;
using testing::Seen;
using testing::TestDnsServer;
using testing::TestServer;

// ---- The setting -------------------------------------------------------------

// "{A}" and "{V}" in a text become the allowed and the victim port.
std::string Fill(std::string text, int a, int v) {
  for (size_t p; (p = text.find("{A}")) != std::string::npos;) text.replace(p, 3, std::to_string(a));
  for (size_t p; (p = text.find("{V}")) != std::string::npos;) text.replace(p, 3, std::to_string(v));
  return text;
}

// Where the allowed server's /r/CODE/KEY redirects lead.
const std::map<std::string, std::string>& RedirectTargets() {
  static const std::map<std::string, std::string> targets = {
      {"victim", "http://127.0.0.1:{V}/"},
      {"metadata", "http://169.254.169.254/latest/meta-data/"},
      {"internal", "http://internal.test:{V}/"},
      {"v6-loopback", "http://[::1]:{V}/"},
      {"decimal", "http://2130706433/"},
      {"file", "file:///etc/passwd"},
      {"gopher", "gopher://127.0.0.1:{V}/_GET%20/"},
      {"network-path", "//127.0.0.1:{V}/"},
      {"localhost", "http://localhost:{V}/"},
      {"userinfo", "http://public.test@127.0.0.1:{V}/"},
      {"rebind", "http://rebind-redirect.test:{A}/"},
      {"again", "http://public.test:{A}/r/302/victim"},  // one more hop, then the victim
      {"dict", "dict://127.0.0.1:11211/stat"},
  };
  return targets;
}

// The test DNS server's table.
void Names(TestDnsServer& dns) {
  dns.Set("public.test", {DnsRecord::A("127.0.0.2")});
  dns.Set("internal.test", {DnsRecord::A("10.0.0.5")});
  dns.Set("loop.test", {DnsRecord::A("127.0.0.1")});
  dns.Set("localhost", {DnsRecord::A("127.0.0.1"), DnsRecord::Aaaa("::1")});
  dns.Set("127.0.0.1.nip.test", {DnsRecord::A("127.0.0.1")});
  dns.Set("meta.test", {DnsRecord::A("169.254.169.254")});
  dns.Set("metadata.google.internal", {DnsRecord::A("169.254.169.254")});
  dns.Set("mixed.test", {DnsRecord::A("127.0.0.2"), DnsRecord::A("127.0.0.1")});
  dns.Set("dual.test", {DnsRecord::A("127.0.0.2"), DnsRecord::Aaaa("::1")});
  dns.Set("cname.test", {DnsRecord::Cname("alias.test")});
  dns.Set("alias.test", {DnsRecord::Cname("internal.test")});
  dns.Set("private172.test", {DnsRecord::A("172.16.0.1")});
  dns.Set("cgnat.test", {DnsRecord::A("100.64.0.1")});
  dns.Set("zero.test", {DnsRecord::A("0.0.0.0")});
  dns.Set("v6-loop.test", {DnsRecord::Aaaa("::1")});
  dns.Set("v6-ll.test", {DnsRecord::Aaaa("fe80::1")});
  dns.Set("v6-ula.test", {DnsRecord::Aaaa("fd00::1")});
  dns.Set("v6-mapped.test", {DnsRecord::Aaaa("::ffff:127.0.0.1")});
  dns.Set("v6-nat64.test", {DnsRecord::Aaaa("64:ff9b::a9fe:a9fe")});
  dns.Set("v6-6to4.test", {DnsRecord::Aaaa("2002:7f00:1::")});
  dns.Set("v6-teredo.test", {DnsRecord::Aaaa("2001:0:4136:e378:8000:63bf:3fff:fdd2")});
  dns.Set("v6-ec2.test", {DnsRecord::Aaaa("fd00:ec2::254")});
  // Rebinding: the answer changes between two lookups.
  dns.SetSequence("rebind.test", {{DnsRecord::A("127.0.0.2")}, {DnsRecord::A("127.0.0.1")}});
  dns.SetSequence("rebind-first.test", {{DnsRecord::A("127.0.0.1")}, {DnsRecord::A("127.0.0.2")}});
  dns.SetSequence("rebind-redirect.test", {{DnsRecord::A("127.0.0.1")}, {DnsRecord::A("127.0.0.2")}});
  dns.SetSequence("rebind-once.test", {{DnsRecord::A("127.0.0.2")}, {DnsRecord::A("127.0.0.1")}});
}

class Setting {
 public:
  Setting() {
    char pattern[] = "/tmp/volent-ssrf-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) {
      problem_ = "mkdtemp failed";
      return;
    }
    dir_ = pattern;
    auto opened = journal::Journal::Open(dir_);
    if (!opened.ok()) {
      problem_ = "journal: " + opened.message();
      return;
    }
    journal_ = std::move(*opened);
    if (!dns_.ok()) {
      problem_ = "the test DNS server could not bind";
      return;
    }
    Names(dns_);

    allowed_ = std::make_unique<TestServer>("127.0.0.2", [this](const Seen& r) { return Answer(r); });
    if (!allowed_->ok()) {
      problem_ = "no server on 127.0.0.2 (is 127.0.0.0/8 on lo?)";
      return;
    }
    a_ = allowed_->port();
    Reply nothing{418, {}, "victim"};
    victims_.push_back(std::make_unique<TestServer>("127.0.0.1", [nothing](const Seen&) { return nothing; }));
    if (!victims_.back()->ok()) {
      problem_ = "no victim server on 127.0.0.1";
      return;
    }
    v_ = victims_.back()->port();
    // The same ports elsewhere on loopback, where the machine allows.
    for (const auto& [ip, port] : std::vector<std::pair<std::string, int>>{{"127.0.0.1", a_}, {"::1", v_}, {"::1", a_}}) {
      auto extra = std::make_unique<TestServer>(ip, [nothing](const Seen&) { return nothing; }, port);
      if (extra->ok()) victims_.push_back(std::move(extra));
    }

    GateOptions options;
    options.dns_server = dns_.address();
    options.on_denial = agent::JournalDenials(*journal_);
    std::vector<manifest::AllowEntry> allow = {
        // The one way to the allowed server: its address, named.
        {"web", "http", "", "127.0.0.2/32", a_, "", {}},
        // Host patterns on every port the attacks use: they match, and the
        // address rule must refuse.
        {"web", "http", "*", "", v_, "", {}},
        {"web", "http", "*", "", a_, "", {}},
        {"web", "http", "*", "", 0, "", {}},
        {"web", "https", "*", "", 0, "", {}},
        // Only "*.test" names.
        {"svc", "http", "", "127.0.0.2/32", a_, "", {}},
        {"svc", "http", "*.test", "", a_, "", {}},
        {"svc", "http", "*.test", "", v_, "", {}},
        {"svc", "http", "*.test", "", 0, "", {}},
        // Only "*".
        {"any", "http", "*", "", 0, "", {}},
        {"any", "http", "*", "", v_, "", {}},
    };
    gate_ = std::make_unique<Gate>(std::move(allow), std::move(options));
  }

  ~Setting() {
    gate_.reset();  // before the journal its sink writes to
    allowed_.reset();
    victims_.clear();
    journal_.reset();
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
  }

  const std::string& problem() const { return problem_; }
  int a() const { return a_; }
  int v() const { return v_; }
  TestDnsServer& dns() { return dns_; }
  const Gate& gate() const { return *gate_; }
  journal::Journal& journal() { return *journal_; }
  const TestServer& allowed() const { return *allowed_; }
  std::string VictimEndpoints() const {
    std::string out;
    for (const auto& v : victims_) {
      out += (out.empty() ? "" : ", ") + v->HostPort();
    }
    return out;
  }
  int VictimConnections() const {
    int total = 0;
    for (const auto& v : victims_) total += v->connections();
    return total;
  }
  std::string Fill(const std::string& text) const { return egress::Fill(text, a_, v_); }

 private:
  Reply Answer(const Seen& request) const {
    const std::string& target = request.target;
    // /r/CODE/KEY: a redirect with status CODE to RedirectTargets()[KEY].
    if (target.rfind("/r/", 0) == 0 && target.size() > 7) {
      const int code = std::atoi(target.substr(3, 3).c_str());
      auto it = RedirectTargets().find(target.substr(7));
      if (it != RedirectTargets().end()) return Reply{code, {{"Location", Fill(it->second)}}, ""};
      return Reply{404, {}, "no such redirect"};
    }
    return Reply{200, {}, "public"};
  }

  std::string problem_;
  std::string dir_;
  std::unique_ptr<journal::Journal> journal_;
  TestDnsServer dns_;
  std::unique_ptr<TestServer> allowed_;
  std::vector<std::unique_ptr<TestServer>> victims_;
  int a_ = 0;
  int v_ = 0;
  std::unique_ptr<Gate> gate_;
};

// ---- The cases -------------------------------------------------------------

struct Case {
  std::string name;    // the test's name: letters, digits, '_'
  std::string url;     // "{A}", "{V}": the ports
  std::string phrase;  // what the reason must say
  std::string capability = "web";
  std::string method = "GET";
  Headers headers = {};
  std::string body = {};
  int hops = 0;                      // redirects followed before the denial
  std::vector<std::string> before = {};  // requests sent first (same capability), answered by the allowed server
  // Checked after the denial, e.g. how often the DNS server was asked.
  std::function<void(Setting&)> also = nullptr;
};

Case Redirect(std::string name, int code, const std::string& key, std::string phrase, int hops = 1) {
  Case c{std::move(name), "http://public.test:{A}/r/" + std::to_string(code) + "/" + key, std::move(phrase)};
  c.hops = hops;
  return c;
}

std::vector<Case> Cases() {
  const std::string numeric = "not a canonical dotted quad";
  std::vector<Case> cases = {
      // Cloud metadata and loopback by address, in every spelling.
      {"metadata_ip", "http://169.254.169.254/latest/meta-data/", "169.254.169.254 is cloud-metadata"},
      {"metadata_decimal", "http://2852039166/latest/meta-data/", numeric},
      {"metadata_octal", "http://0251.0376.0251.0376/latest/meta-data/", numeric},
      {"metadata_hex_dotted", "http://0xa9.0xfe.0xa9.0xfe/latest/meta-data/", numeric},
      {"metadata_hex", "http://0xa9fea9fe/latest/meta-data/", numeric},
      {"metadata_short", "http://169.254.43518/latest/meta-data/", numeric},
      {"loopback_short", "http://127.1:{V}/", numeric},
      {"loopback_octal", "http://0177.0.0.1:{V}/", numeric},
      {"loopback_hex", "http://0x7f000001:{V}/", numeric},
      {"loopback_zero_padded", "http://127.000.000.001:{V}/", numeric},
      {"loopback_decimal", "http://2130706433:{V}/", numeric},
      {"zero_integer", "http://0:{V}/", numeric},
      {"loopback_ip", "http://127.0.0.1:{V}/", "127.0.0.1 is loopback"},
      {"unspecified_ip", "http://0.0.0.0:{V}/", "0.0.0.0 is unspecified"},
      {"private_ip", "http://10.0.0.5/", "10.0.0.5 is private"},
      {"cgnat_ip", "http://100.64.0.1/", "100.64.0.1 is cgnat"},
      // IPv6 literals.
      {"v6_mapped_metadata", "http://[::ffff:169.254.169.254]/", "cloud-metadata (embeds 169.254.169.254)"},
      {"v6_mapped_metadata_hex", "http://[::ffff:a9fe:a9fe]/", "cloud-metadata (embeds 169.254.169.254)"},
      {"v6_mapped_loopback_long", "http://[0:0:0:0:0:ffff:127.0.0.1]:{V}/", "loopback (embeds 127.0.0.1)"},
      {"v6_loopback", "http://[::1]:{V}/", "::1 is loopback"},
      {"v6_unspecified", "http://[::]:{V}/", ":: is unspecified"},
      {"v6_unique_local", "http://[fd00::1]/", "fd00::1 is unique-local"},
      {"v6_link_local_zone", "http://[fe80::1%25eth0]/", "percent-encoding"},
      {"v6_ec2_metadata", "http://[fd00:ec2::254]/", "is cloud-metadata"},
      {"v6_nat64_metadata", "http://[64:ff9b::a9fe:a9fe]/", "is nat64"},
      {"v6_6to4_loopback", "http://[2002:7f00:1::]:{V}/", "is 6to4"},
      {"v6_compatible_loopback", "http://[::127.0.0.1]:{V}/", "loopback"},
      // Names the test DNS server resolves to forbidden addresses.
      {"dns_private", "http://internal.test:{V}/", "10.0.0.5 is private"},
      {"dns_loopback", "http://loop.test:{V}/", "127.0.0.1 is loopback"},
      {"dns_localhost", "http://localhost:{V}/", "127.0.0.1 is loopback"},
      {"dns_ip_in_name", "http://127.0.0.1.nip.test:{V}/", "127.0.0.1 is loopback"},
      {"dns_metadata", "http://meta.test/latest/meta-data/", "169.254.169.254 is cloud-metadata"},
      {"dns_metadata_google", "http://metadata.google.internal/computeMetadata/v1/", "169.254.169.254 is cloud-metadata"},
      {"dns_private_172", "http://private172.test/", "172.16.0.1 is private"},
      {"dns_cgnat", "http://cgnat.test/", "100.64.0.1 is cgnat"},
      {"dns_unspecified", "http://zero.test:{V}/", "0.0.0.0 is unspecified"},
      {"dns_cname_chain_private", "http://cname.test:{V}/", "10.0.0.5 is private"},
      {"dns_one_public_one_loopback", "http://mixed.test:{A}/", "127.0.0.1 is outside cidr entry 127.0.0.2/32"},
      {"dns_public_v4_loopback_v6", "http://dual.test:{A}/", "::1 is outside cidr entry 127.0.0.2/32"},
      {"dns_v6_loopback", "http://v6-loop.test:{V}/", "::1 is loopback"},
      {"dns_v6_link_local", "http://v6-ll.test/", "fe80::1 is link-local"},
      {"dns_v6_unique_local", "http://v6-ula.test/", "fd00::1 is unique-local"},
      {"dns_v6_mapped_loopback", "http://v6-mapped.test:{V}/", "loopback (embeds 127.0.0.1)"},
      {"dns_v6_nat64", "http://v6-nat64.test/", "is nat64"},
      {"dns_v6_6to4", "http://v6-6to4.test/", "is 6to4"},
      {"dns_v6_teredo", "http://v6-teredo.test/", "is teredo"},
      {"dns_v6_ec2_metadata", "http://v6-ec2.test/", "is cloud-metadata"},
      // Host patterns never open a forbidden range.
      {"pattern_subdomain_private", "http://internal.test:{A}/", "host entry \"*.test\" never reaches", "svc"},
      {"pattern_subdomain_loopback", "http://loop.test:{V}/", "host entry \"*.test\" never reaches", "svc"},
      {"pattern_star_metadata", "http://meta.test/", "host entry \"*\" never reaches", "any"},
      {"pattern_star_loopback_ip", "http://127.0.0.1:{V}/", "host entry \"*\" never reaches", "any"},
      // User information and other authority tricks.
      {"userinfo_public_at_loopback", "http://public.test@127.0.0.1:{V}/", "user information"},
      {"userinfo_with_port_at_metadata", "http://public.test:{A}@169.254.169.254/", "user information"},
      {"fragment_at_public", "http://127.0.0.1:{V}#@public.test/", "fragment"},
      {"backslash_at", "http://public.test:{A}\\@127.0.0.1:{V}/", "backslash"},
      {"trailing_dot_ip", "http://127.0.0.1.:{V}/", "ends with \".\""},
      // Schemes other than http and https.
      {"scheme_file", "file:///etc/passwd", "scheme \"file\" is not allowed"},
      {"scheme_gopher", "gopher://127.0.0.1:{V}/_GET%20/", "scheme \"gopher\" is not allowed"},
      {"scheme_ftp", "ftp://127.0.0.1:{V}/", "scheme \"ftp\" is not allowed"},
      {"scheme_dict", "dict://127.0.0.1:11211/stat", "scheme \"dict\" is not allowed"},
      {"scheme_ldap", "ldap://127.0.0.1:{V}/", "scheme \"ldap\" is not allowed"},
      // CR and LF: header and request-line injection.
      {"crlf_header_value", "http://public.test:{A}/", "header injection", "web", "GET",
       {{"X-Note", "a\r\nHost: 127.0.0.1:{V}"}}},
      {"crlf_header_name", "http://public.test:{A}/", "header injection", "web", "GET",
       {{"X-Note\r\nHost", "127.0.0.1"}}},
      {"lf_header_value", "http://public.test:{A}/", "header injection", "web", "GET", {{"X-Note", "a\nb"}}},
      {"crlf_in_url_path", "http://public.test:{A}/\r\nHost: 127.0.0.1:{V}", "control character"},
      {"crlf_in_url_host", "http://127.0.0.1\r\n.public.test:{A}/", "control character"},
      {"crlf_in_method", "http://public.test:{A}/", "is not a token", "web", "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"},
      // Rebinding: the name changes its answer between two lookups. The
      // gate resolves once per request and connects to what it judged.
      {"rebind_second_lookup_loopback", "http://rebind.test:{A}/", "127.0.0.1 is outside cidr entry 127.0.0.2/32",
       "web", "GET", {}, {}, 0, {"http://rebind.test:{A}/"},
       [](Setting& s) { EXPECT_EQ(s.dns().Queries("rebind.test", TestDnsServer::kTypeA), 2); }},
      {"rebind_first_lookup_loopback", "http://rebind-first.test:{A}/", "127.0.0.1 is outside cidr entry 127.0.0.2/32",
       "web", "GET", {}, {}, 0, {},
       [](Setting& s) { EXPECT_EQ(s.dns().Queries("rebind-first.test", TestDnsServer::kTypeA), 1); }},
  };
  // A public, allowed name redirecting to forbidden places; every hop is
  // judged from the top.
  std::vector<Case> redirects = {
      Redirect("redirect_301_loopback", 301, "victim", "127.0.0.1 is loopback"),
      Redirect("redirect_302_loopback", 302, "victim", "127.0.0.1 is loopback"),
      Redirect("redirect_303_loopback", 303, "victim", "127.0.0.1 is loopback"),
      Redirect("redirect_307_loopback", 307, "victim", "127.0.0.1 is loopback"),
      Redirect("redirect_308_loopback", 308, "victim", "127.0.0.1 is loopback"),
      Redirect("redirect_301_metadata", 301, "metadata", "169.254.169.254 is cloud-metadata"),
      Redirect("redirect_302_private_name", 302, "internal", "10.0.0.5 is private"),
      Redirect("redirect_307_v6_loopback", 307, "v6-loopback", "::1 is loopback"),
      Redirect("redirect_308_decimal", 308, "decimal", numeric),
      Redirect("redirect_302_file", 302, "file", "scheme \"file\" is not allowed"),
      Redirect("redirect_301_gopher", 301, "gopher", "scheme \"gopher\" is not allowed"),
      Redirect("redirect_307_dict", 307, "dict", "scheme \"dict\" is not allowed"),
      Redirect("redirect_302_network_path", 302, "network-path", "127.0.0.1 is loopback"),
      Redirect("redirect_303_localhost", 303, "localhost", "127.0.0.1 is loopback"),
      Redirect("redirect_302_userinfo", 302, "userinfo", "user information"),
      Redirect("redirect_302_rebinding_name", 302, "rebind", "127.0.0.1 is outside cidr entry 127.0.0.2/32"),
      Redirect("redirect_302_second_hop", 302, "again", "127.0.0.1 is loopback", 2),
  };
  Case post = Redirect("redirect_307_post_loopback", 307, "victim", "127.0.0.1 is loopback");
  post.method = "POST";
  post.body = "{\"secret\":1}";
  redirects.push_back(post);
  cases.insert(cases.end(), redirects.begin(), redirects.end());
  return cases;
}

// What one case came to, for the count.
struct Tally {
  bool denied = false;
  bool journaled = false;
  int victim_connections = 0;
};

// Case 7 is the step "ssrf/case-07/1": agent "ssrf", run "case-07", step 1.
std::string CaseRun(size_t index) {
  char run[32];
  std::snprintf(run, sizeof(run), "case-%02zu", index);
  return run;
}
std::string CaseKey(size_t index, uint64_t step = 1) {
  return "ssrf/" + CaseRun(index) + "/" + std::to_string(step);
}

enum class Via { kSend, kSendAsync };

// One SendAsync's callbacks, kept until the end of the run: `done` must
// come exactly once, and a late second call must find this alive.
struct Callbacks {
  std::mutex mutex;
  std::condition_variable cv;
  int calls = 0;
  SendResult result;
};

// Gate::SendAsync, waited for.
SendResult SendAndWait(const Gate& gate, const std::string& capability, HttpRequest request,
                       std::vector<std::shared_ptr<Callbacks>>& kept) {
  auto state = std::make_shared<Callbacks>();
  kept.push_back(state);
  gate.SendAsync(capability, std::move(request), [state](SendResult r) {
    std::lock_guard<std::mutex> lock(state->mutex);
    ++state->calls;
    state->result = std::move(r);
    state->cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(state->mutex);
  EXPECT_TRUE(state->cv.wait_for(lock, std::chrono::seconds(60), [&] { return state->calls > 0; }))
      << "no callback";
  return state->result;
}

// Runs case `index` in `s`, checking everything the suite promises. Through
// Send its journal key is "ssrf/case-NN/1", through SendAsync ".../2".
Tally RunCase(Setting& s, const Case& c, size_t index, Via via = Via::kSend,
              std::vector<std::shared_ptr<Callbacks>>* kept = nullptr) {
  const uint64_t step = via == Via::kSend ? 1 : 2;
  Tally tally;
  SCOPED_TRACE(c.name + ": " + s.Fill(c.url));
  const int victims_before = s.VictimConnections();
  for (const std::string& first : c.before) {
    HttpRequest warm;
    warm.url = s.Fill(first);
    SendResult r = s.gate().Send(c.capability, warm);
    EXPECT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
    EXPECT_EQ(r.pinned_address, "127.0.0.2:" + std::to_string(s.a()));
  }
  const size_t allowed_before = s.allowed().Requests().size();

  HttpRequest request;
  request.url = s.Fill(c.url);
  request.method = c.method;
  for (const auto& [name, value] : c.headers) request.headers.emplace_back(s.Fill(name), s.Fill(value));
  request.body = c.body;
  request.timeout_ms = 10000;
  request.origin = CaseKey(index, step);
  const SendResult r =
      via == Via::kSend || kept == nullptr ? s.gate().Send(c.capability, request)
                                           : SendAndWait(s.gate(), c.capability, request, *kept);

  tally.denied = r.outcome == Outcome::kDenied;
  EXPECT_EQ(OutcomeName(r.outcome), "denied") << r.reason;
  EXPECT_NE(r.reason.find(c.phrase), std::string::npos) << "reason: " << r.reason << "\nexpected: " << c.phrase;
  EXPECT_EQ(r.pinned_address, "");
  EXPECT_EQ(r.redirects.size(), static_cast<size_t>(c.hops));
  // Nothing reached a victim; the allowed server saw only the hops before
  // the one refused.
  tally.victim_connections = s.VictimConnections() - victims_before;
  EXPECT_EQ(tally.victim_connections, 0);
  EXPECT_EQ(s.allowed().Requests().size() - allowed_before, static_cast<size_t>(c.hops));

  const journal::EffectKey key{"ssrf", CaseRun(index), step};
  auto entry = s.journal().Get(key, journal::EntryKind::kEgressDenied);
  EXPECT_TRUE(entry.ok()) << entry.message();
  if (entry.ok() && entry->has_value()) {
    const nlohmann::json payload = nlohmann::json::parse((*entry)->payload, nullptr, false);
    EXPECT_EQ(payload.value("capability", ""), c.capability);
    EXPECT_EQ(payload.value("origin", ""), CaseKey(index, step));
    EXPECT_EQ(payload.value("hop", -1), c.hops);
    EXPECT_EQ(payload.value("reason", ""), r.reason);
    tally.journaled = payload.value("reason", "").find(c.phrase) != std::string::npos;
  } else {
    ADD_FAILURE() << "no egress-denied entry for " << CaseKey(index, step);
  }
  if (c.also) c.also(s);
  return tally;
}

class Ssrf : public ::testing::TestWithParam<size_t> {};

TEST_P(Ssrf, Denied) {
  Setting s;
  ASSERT_EQ(s.problem(), "");
  const std::vector<Case> cases = Cases();
  RunCase(s, cases[GetParam()], GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cases, Ssrf, ::testing::Range<size_t>(0, Cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) { return Cases()[info.param].name; });

// ---- Not denials: what the gate does instead ------------------------------

HttpRequest Get(const Setting& s, const std::string& url) {
  HttpRequest r;
  r.url = s.Fill(url);
  r.timeout_ms = 10000;
  return r;
}

// A name that rebinds after its first answer: the request goes to the
// address judged, and the name is asked for once.
TEST(SsrfNotDenied, RebindingAfterTheCheckDoesNotMoveTheRequest) {
  Setting s;
  ASSERT_EQ(s.problem(), "");
  SendResult r = s.gate().Send("web", Get(s, "http://rebind-once.test:{A}/pinned"));
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  EXPECT_EQ(r.pinned_address, "127.0.0.2:" + std::to_string(s.a()));
  EXPECT_EQ(s.dns().Queries("rebind-once.test", TestDnsServer::kTypeA), 1);
  ASSERT_EQ(s.allowed().Requests().size(), 1u);
  EXPECT_EQ(s.allowed().Requests()[0].target, "/pinned");
  EXPECT_EQ(s.allowed().Requests()[0].Get("Host"), "rebind-once.test:" + std::to_string(s.a()));
  EXPECT_EQ(s.VictimConnections(), 0);
}

// Host, X-Forwarded-* and Forwarded given by the caller are dropped: the
// connection goes where the URL says, with the URL's Host.
TEST(SsrfNotDenied, CallerHostAndForwardingHeadersDoNotSteer) {
  Setting s;
  ASSERT_EQ(s.problem(), "");
  HttpRequest r = Get(s, "http://public.test:{A}/steer");
  r.headers = {{"Host", s.Fill("127.0.0.1:{V}")},
               {"X-Forwarded-For", "127.0.0.1"},
               {"X-Forwarded-Host", s.Fill("127.0.0.1:{V}")},
               {"Forwarded", "for=127.0.0.1;host=169.254.169.254"},
               {"X-Real-Note", "kept"}};
  SendResult result = s.gate().Send("web", r);
  ASSERT_EQ(result.outcome, Outcome::kAnswered) << result.reason;
  EXPECT_EQ(result.pinned_address, "127.0.0.2:" + std::to_string(s.a()));
  auto seen = s.allowed().Requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].Get("Host"), "public.test:" + std::to_string(s.a()));
  EXPECT_EQ(seen[0].Count("X-Forwarded-For"), 0u);
  EXPECT_EQ(seen[0].Count("X-Forwarded-Host"), 0u);
  EXPECT_EQ(seen[0].Count("Forwarded"), 0u);
  EXPECT_EQ(seen[0].Get("X-Real-Note"), "kept");
  EXPECT_EQ(s.VictimConnections(), 0);
}

// The allowed server itself is reachable: the denials above are the
// address rule at work, not a setting where nothing can connect.
TEST(SsrfNotDenied, ThePublicNameIsReachable) {
  Setting s;
  ASSERT_EQ(s.problem(), "");
  SendResult r = s.gate().Send("web", Get(s, "http://public.test:{A}/hello"));
  ASSERT_EQ(r.outcome, Outcome::kAnswered) << r.reason;
  EXPECT_EQ(r.response.status, 200);
  EXPECT_EQ(r.response.body, "public");
  EXPECT_EQ(s.dns().Queries("public.test", TestDnsServer::kTypeA), 1);
  EXPECT_EQ(s.VictimConnections(), 0);
}

// A name nobody resolves is not a denial (the allowlist matched, the name
// did not resolve): nothing is sent, and it is not counted above.
TEST(SsrfNotDenied, UnresolvableNameIsNotSent) {
  Setting s;
  ASSERT_EQ(s.problem(), "");
  SendResult r = s.gate().Send("web", Get(s, "http://nowhere.test/"));
  EXPECT_EQ(r.outcome, Outcome::kNotSent) << r.reason;
  EXPECT_NE(r.reason.find("NXDOMAIN"), std::string::npos) << r.reason;
  EXPECT_EQ(s.VictimConnections(), 0);
}

// ---- The count ---------------------------------------------------------------

void Summarize(Via via) {
  Setting s;
  ASSERT_EQ(s.problem(), "");
  const std::vector<Case> cases = Cases();
  size_t denied = 0;
  size_t journaled = 0;
  int reached = 0;
  std::vector<std::shared_ptr<Callbacks>> kept;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Tally t = RunCase(s, cases[i], i, via, &kept);
    denied += t.denied ? 1 : 0;
    journaled += t.journaled ? 1 : 0;
    reached += t.victim_connections;
  }
  reached = s.VictimConnections();  // everything, warm-up requests included
  for (const auto& state : kept) {
    std::lock_guard<std::mutex> lock(state->mutex);
    EXPECT_EQ(state->calls, 1);
  }
  std::printf("ssrf: victims listening on %s\n", s.VictimEndpoints().c_str());
  std::printf("ssrf%s: %zu cases, %zu denied, %zu journaled, %d reached the victim\n", via == Via::kSend ? "" : " (SendAsync)",
              cases.size(), denied,
              journaled, reached);
  EXPECT_GE(cases.size(), 40u);
  EXPECT_EQ(denied, cases.size());
  EXPECT_EQ(journaled, cases.size());
  EXPECT_EQ(reached, 0);
}

TEST(SsrfSummary, EveryCaseDeniedJournaledAndHarmless) { Summarize(Via::kSend); }

// The same table through SendAsync (its resolution is ResolveHostAsync).
TEST(SsrfSummary, EveryCaseDeniedThroughSendAsync) { Summarize(Via::kSendAsync); }

}  // namespace
}  // namespace volent::egress
