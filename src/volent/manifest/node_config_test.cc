// The node configuration (volent.yaml): valid ones fill NodeConfig; errors
// are reported like a manifest's; the examples in examples/node pass.
#include "volent/manifest/manifest.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace volent::manifest {
namespace {

namespace fs = std::filesystem;

constexpr char kConfig[] =
    "apiVersion: volent/v1\n"          // 1
    "kind: NodeConfig\n"               // 2
    "listen: 127.0.0.1:8470\n"         // 3
    "data_dir: data\n"                 // 4
    "egress:\n"                        // 5
    "  allow:\n"                       // 6
    "    - capability: erp.orders\n"   // 7
    "      scheme: http\n"             // 8
    "      cidr: 10.20.0.0/16\n"       // 9
    "      port: 8080\n"               // 10
    "      path_prefix: /api/\n"       // 11
    "      methods: [GET, POST]\n"     // 12
    "    - capability: payments\n"     // 13
    "      scheme: https\n"            // 14
    "      host: \"*.payments.example.com\"\n"  // 15
    "tool_keys:\n"                     // 16
    "  - name: release\n"              // 17
    "    public_key: 11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n";  // 18

std::string Replace(const std::string& from, const std::string& to) {
  std::string text = kConfig;
  text.replace(text.find(from), from.size(), to);
  return text;
}

std::string OnlyProblem(const std::string& text) {
  Checked<NodeConfig> config = LoadNodeConfig(text, "volent.yaml", "/etc/volent");
  EXPECT_EQ(config.ok(), config.problems.empty());
  std::string all;
  for (const Problem& p : config.problems) all += (all.empty() ? "" : "\n") + FormatProblem(p);
  return all;
}

TEST(NodeConfigTest, ValidConfigFillsTheStruct) {
  Checked<NodeConfig> config = LoadNodeConfig(kConfig, "volent.yaml", "/etc/volent");
  ASSERT_TRUE(config.ok()) << FormatProblem(config.problems.at(0));
  EXPECT_EQ(config.value->listen_host, "127.0.0.1");
  EXPECT_EQ(config.value->listen_port, 8470);
  EXPECT_EQ(config.value->data_dir, "/etc/volent/data");
  ASSERT_EQ(config.value->egress.size(), 2u);
  const AllowEntry& erp = config.value->egress[0];
  EXPECT_EQ(erp.capability, "erp.orders");
  EXPECT_EQ(erp.scheme, "http");
  EXPECT_EQ(erp.cidr, "10.20.0.0/16");
  EXPECT_EQ(erp.host, "");
  EXPECT_EQ(erp.port, 8080);
  EXPECT_EQ(erp.path_prefix, "/api/");
  EXPECT_EQ(erp.methods, (std::vector<std::string>{"GET", "POST"}));
  EXPECT_EQ(config.value->egress[1].host, "*.payments.example.com");
  EXPECT_EQ(config.value->egress[1].port, 0);
  ASSERT_EQ(config.value->tool_keys.size(), 1u);
  EXPECT_EQ(config.value->tool_keys[0].name, "release");
  EXPECT_EQ(config.value->document["kind"], "NodeConfig");
}

TEST(NodeConfigTest, DefaultsAndAbsoluteDataDir) {
  Checked<NodeConfig> config = LoadNodeConfig("apiVersion: volent/v1\nkind: NodeConfig\n", "v.yaml", "base");
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config.value->listen_host, "127.0.0.1");
  EXPECT_EQ(config.value->listen_port, 8470);
  EXPECT_EQ(config.value->data_dir, "base/data");
  config = LoadNodeConfig("apiVersion: volent/v1\nkind: NodeConfig\nlisten: '[::1]:9000'\ndata_dir: /var/lib/volent\n",
                          "v.yaml", "base");
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config.value->listen_host, "::1");
  EXPECT_EQ(config.value->listen_port, 9000);
  EXPECT_EQ(config.value->data_dir, "/var/lib/volent");
}

TEST(NodeConfigTest, Errors) {
  EXPECT_EQ(OnlyProblem(Replace("127.0.0.1:8470", "127.0.0.1:70000")),
            "volent.yaml:3:9: /listen: the address has a port that is not 1 to 65535 (without leading zeros)");
  EXPECT_EQ(OnlyProblem(Replace("127.0.0.1:8470", "localhost")),
            "volent.yaml:3:9: /listen: must be HOST:PORT, e.g. 127.0.0.1:8470 or [::1]:8470; found \"localhost\"");
  EXPECT_EQ(OnlyProblem(Replace("scheme: http\n", "scheme: ftp\n")),
            "volent.yaml:8:15: /egress/allow/0/scheme: must be one of \"https\", \"http\"; found \"ftp\"");
  EXPECT_EQ(OnlyProblem(Replace("10.20.0.0/16", "10.20.0.1/16")),
            "volent.yaml:9:13: /egress/allow/0/cidr: the range has address bits set beyond the prefix length");
  EXPECT_EQ(OnlyProblem(Replace("10.20.0.0/16", "010.20.0.0/16")),
            "volent.yaml:9:13: /egress/allow/0/cidr: the range has an IPv4 address that is not a canonical dotted quad");
  EXPECT_EQ(OnlyProblem(Replace("10.20.0.0/16", "fd00::/8")), "");
  EXPECT_EQ(OnlyProblem(Replace("10.20.0.0/16", "fd00::1/8")),
            "volent.yaml:9:13: /egress/allow/0/cidr: the range has address bits set beyond the prefix length");
  EXPECT_EQ(OnlyProblem(Replace("*.payments.example.com", "a..example.com")),
            "volent.yaml:15:13: /egress/allow/1/host: the host has an empty label (\"..\" or a leading or trailing \".\")");
  EXPECT_EQ(OnlyProblem(Replace("*.payments.example.com", "10.1.2.3")),
            "volent.yaml:15:13: /egress/allow/1/host: the host is an IP address; name an address range with \"cidr\" instead");
  EXPECT_EQ(OnlyProblem(Replace("      host: \"*.payments.example.com\"\n", "")),
            "volent.yaml:13:7: /egress/allow/1: missing required field \"cidr\" (an entry names exactly one of host and cidr)");
  EXPECT_EQ(OnlyProblem(Replace("      port: 8080\n", "      port: 8080\n      host: erp.internal\n")),
            "volent.yaml:9:7: /egress/allow/0/cidr: field \"cidr\" is not allowed here (an entry names exactly one of host and cidr)");
  EXPECT_EQ(OnlyProblem(Replace("HURo=", "HURp=")),
            "volent.yaml:18:17: /tool_keys/0/public_key: must be an Ed25519 public key: the base64 of its 32 bytes (44 "
            "characters); found \"11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURp=\"");
  EXPECT_EQ(OnlyProblem(Replace("  - name: release\n", "  - name: release\n    nmae: x\n")),
            "volent.yaml:18:5: /tool_keys/0/nmae: unknown field \"nmae\"");
  EXPECT_EQ(OnlyProblem(std::string(kConfig) + "  - name: release\n    public_key: 11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n"),
            "volent.yaml:19:11: /tool_keys/1/name: duplicate key name \"release\" (also tool_keys entry 0)");
  EXPECT_EQ(OnlyProblem(Replace("kind: NodeConfig", "kind: Agent")),
            "volent.yaml:2:7: /kind: must be \"NodeConfig\"; found \"Agent\"");
}

TEST(NodeConfigTest, EgressDnsServerAndMaxRedirects) {
  Checked<NodeConfig> config = LoadNodeConfig(kConfig, "volent.yaml", "/etc/volent");
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config.value->egress_dns_server, "");  // the system resolver
  EXPECT_EQ(config.value->egress_max_redirects, 5);

  for (const std::string server : {"192.0.2.53", "192.0.2.53:5353", "127.0.0.1:53", "[::1]", "[::1]:5353",
                                   "[2001:db8::53]:53", "8.8.8.8:65535"}) {
    config = LoadNodeConfig(Replace("egress:\n", "egress:\n  dns_server: \"" + server + "\"\n  max_redirects: 0\n"),
                            "volent.yaml", "/etc/volent");
    ASSERT_TRUE(config.ok()) << server << ": " << FormatProblem(config.problems.at(0));
    EXPECT_EQ(config.value->egress_dns_server, server);
    EXPECT_EQ(config.value->egress_max_redirects, 0);
  }
  config = LoadNodeConfig(Replace("egress:\n", "egress:\n  max_redirects: 20\n"), "volent.yaml", "/etc/volent");
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config.value->egress_max_redirects, 20);
}

TEST(NodeConfigTest, EgressDnsServerAndMaxRedirectsErrors) {
  auto problem = [](const std::string& lines) { return OnlyProblem(Replace("egress:\n", "egress:\n" + lines)); };
  // What the schema's pattern refuses: not an address with an optional port.
  for (const std::string server : {"dns.example.com", "dns.example.com:53", "::1", "2001:db8::1:53", "[::1", "[::1]53",
                                   "127.1", "0x7f000001", "2130706433", " 192.0.2.53", ""}) {
    const std::string p = problem("  dns_server: \"" + server + "\"\n");
    EXPECT_NE(p.find("volent.yaml:6:15: /egress/dns_server: must be an IP address with an optional port"),
              std::string::npos)
        << server << ": " << p;
  }
  // What the pattern lets through and the address rules refuse.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"010.0.0.1", "is not an IP address"},  // zero-padded: octal to some readers
      {"192.0.2.256", "is not an IP address"},
      {"[fe80::1%eth0]:53", ""},  // '%' is outside the pattern
      {"[::ffff:127.0.0.1]", "IPv4-mapped"},
      {"[nonsense]", ""},
      {"[1:2:3]", "does not parse"},
      {"192.0.2.53:0", "port"},
      {"192.0.2.53:053", "port"},
      {"192.0.2.53:65536", "port"},
      {"[::1]:99999", "port"},
      {"0.0.0.0", "not a destination"},
      {"[::]:53", "not a destination"},
      {"224.0.0.251:5353", "not a destination"},
      {"[ff02::fb]", "not a destination"},
      {"255.255.255.255", "not a destination"},
  };
  for (const auto& [server, phrase] : cases) {
    const std::string p = problem("  dns_server: \"" + server + "\"\n");
    EXPECT_EQ(p.rfind("volent.yaml:6:15: /egress/dns_server: ", 0), 0u) << server << ": " << p;
    EXPECT_NE(p.find(phrase), std::string::npos) << server << ": " << p;
    EXPECT_EQ(p.find('\n'), std::string::npos) << "one problem only: " << p;
  }
  EXPECT_EQ(problem("  dns_server: \"[0:0:0:0:0:0:0:1]:53\"\n"), "");
  EXPECT_EQ(problem("  dns_server: \"192.0.2.53:0\"\n"),
            "volent.yaml:6:15: /egress/dns_server: the DNS server has a port that is not 1 to 65535 (without leading "
            "zeros)");
  EXPECT_NE(problem("  max_redirects: 21\n").find("volent.yaml:6:18: /egress/max_redirects: "), std::string::npos)
      << problem("  max_redirects: 21\n");
  EXPECT_NE(problem("  max_redirects: -1\n").find("/egress/max_redirects: "), std::string::npos);
  EXPECT_NE(problem("  max_redirects: \"5\"\n").find("/egress/max_redirects: "), std::string::npos);
  EXPECT_NE(problem("  dns_server: 53\n").find("/egress/dns_server: "), std::string::npos);
  EXPECT_EQ(problem("  dns_servers: \"192.0.2.53\"\n"),
            "volent.yaml:6:3: /egress/dns_servers: unknown field \"dns_servers\"");
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(NodeConfigTest, ExamplesPass) {
  const char* source = std::getenv("AMPOULE_SOURCE_DIR");
  if (source == nullptr) GTEST_SKIP() << "AMPOULE_SOURCE_DIR is not set (ctest sets it)";
  const fs::path dir = fs::path(source) / "examples" / "node";
  Checked<NodeConfig> config = LoadNodeConfig(ReadFile(dir / "volent.yaml"), "volent.yaml", dir.string());
  ASSERT_TRUE(config.ok()) << FormatProblem(config.problems.at(0));
  int agents = 0;
  for (const auto& entry : fs::directory_iterator(dir / "agents")) {
    const std::string name = entry.path().filename().string();
    Checked<Agent> agent = LoadAgent(ReadFile(entry.path()), name, &*config.value);
    EXPECT_TRUE(agent.ok()) << FormatProblem(agent.problems.at(0));
    ++agents;
  }
  EXPECT_GE(agents, 2);
}

TEST(NodeConfigTest, SchemasAreServedAsWritten) {
  EXPECT_NE(AgentSchemaText().find("\"$id\": \"urn:volent:schema:agent:v1\""), std::string_view::npos);
  EXPECT_NE(NodeConfigSchemaText().find("\"$id\": \"urn:volent:schema:node-config:v1\""), std::string_view::npos);
  EXPECT_EQ(DocumentKind(kConfig), "NodeConfig");
  EXPECT_EQ(DocumentKind("[1"), "");
}

}  // namespace
}  // namespace volent::manifest

namespace volent::manifest {
namespace {

TEST(NodeConfigTest, Attestation) {
  Checked<NodeConfig> plain = LoadNodeConfig(kConfig, "volent.yaml", "/etc/volent");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain.value->attestation.tpm, "default");
  EXPECT_EQ(plain.value->attestation.pcr, 15);
  EXPECT_EQ(plain.value->attestation.signing_key, "");
  EXPECT_EQ(plain.value->attestation.key_provenance, "dev-only");

  const std::string with = std::string(kConfig) +
                           "attestation:\n  tpm: \"swtpm:host=127.0.0.1,port=2321\"\n  pcr: 14\n"
                           "  signing_key: keys/node.key\n  key_provenance: production\n";
  Checked<NodeConfig> config = LoadNodeConfig(with, "volent.yaml", "/etc/volent");
  ASSERT_TRUE(config.ok()) << FormatProblem(config.problems.at(0));
  EXPECT_EQ(config.value->attestation.tpm, "swtpm:host=127.0.0.1,port=2321");
  EXPECT_EQ(config.value->attestation.pcr, 14);
  EXPECT_EQ(config.value->attestation.signing_key, "/etc/volent/keys/node.key");
  EXPECT_EQ(config.value->attestation.key_provenance, "production");

  EXPECT_EQ(OnlyProblem(std::string(kConfig) + "attestation:\n  key_provenance: production\n"),
            "volent.yaml:20:19: /attestation/key_provenance: \"production\" needs attestation.signing_key: a key "
            "the node makes itself is dev-only");
  EXPECT_NE(OnlyProblem(std::string(kConfig) + "attestation:\n  tpm: \"device:/etc/passwd\"\n"), "");
  EXPECT_NE(OnlyProblem(std::string(kConfig) + "attestation:\n  pcr: 23\n"), "");
}

// egress.credentials and an entry's credential (docs/egress.md, "Credentials").
constexpr char kCredentials[] =
    "apiVersion: volent/v1\n"
    "kind: NodeConfig\n"
    "egress:\n"
    "  credentials:\n"
    "    orders:\n"
    "      header: Authorization\n"
    "      prefix: \"Bearer \"\n"
    "      value_file: secrets/orders.token\n"
    "    search:\n"
    "      header: X-Api-Key\n"
    "      value_env: SEARCH_KEY\n"
    "  allow:\n"
    "    - capability: orders\n"
    "      scheme: https\n"
    "      host: orders.internal.example\n"
    "      credential: orders\n"
    "    - capability: search\n"
    "      scheme: http\n"
    "      cidr: 10.20.0.7/32\n"
    "      credential: search\n";

std::string CredentialProblems(const std::string& from, const std::string& to) {
  std::string text = kCredentials;
  text.replace(text.find(from), from.size(), to);
  return OnlyProblem(text);
}

TEST(NodeConfigTest, EgressCredentials) {
  Checked<NodeConfig> config = LoadNodeConfig(kCredentials, "volent.yaml", "/etc/volent");
  ASSERT_TRUE(config.ok()) << FormatProblem(config.problems.at(0));
  ASSERT_EQ(config.value->egress.size(), 2u);
  EXPECT_EQ(config.value->egress[0].credential, "orders");
  EXPECT_EQ(config.value->egress[1].credential, "search");
  ASSERT_EQ(config.value->egress_credentials.size(), 2u);
  const EgressCredential& orders = config.value->egress_credentials[0];
  EXPECT_EQ(orders.name, "orders");
  EXPECT_EQ(orders.header, "Authorization");
  EXPECT_EQ(orders.prefix, "Bearer ");
  EXPECT_EQ(orders.value_file, "/etc/volent/secrets/orders.token");
  EXPECT_EQ(orders.value_env, "");
  const EgressCredential& search = config.value->egress_credentials[1];
  EXPECT_EQ(search.value_env, "SEARCH_KEY");
  EXPECT_EQ(search.value_file, "");
  // The measured allowlist is the document's: the names are in it.
  EXPECT_EQ(config.value->document["egress"]["allow"][0]["credential"], "orders");
}

TEST(NodeConfigTest, EgressCredentialErrors) {
  // An entry with a credential names one host or one address: a pattern or
  // a range would let a tool choose the server that receives it.
  EXPECT_NE(CredentialProblems("host: orders.internal.example", "host: \"*.internal.example\"")
                .find("/egress/allow/0/credential: an entry with a credential must name one host"),
            std::string::npos);
  EXPECT_NE(CredentialProblems("host: orders.internal.example", "host: \"*\"").find("must name one host"),
            std::string::npos);
  EXPECT_NE(CredentialProblems("cidr: 10.20.0.7/32", "cidr: 10.20.0.0/16")
                .find("/egress/allow/1/credential: an entry with a credential must name one address (/32)"),
            std::string::npos);
  EXPECT_NE(CredentialProblems("cidr: 10.20.0.7/32", "cidr: fd00::7/64").find("one address (/128)"),
            std::string::npos);
  EXPECT_EQ(CredentialProblems("cidr: 10.20.0.7/32", "cidr: fd00::7/128"), "");
  // Named and not declared; declared and never named.
  EXPECT_NE(CredentialProblems("credential: search", "credential: other")
                .find("/egress/allow/1/credential: credential \"other\" is not declared in egress.credentials"),
            std::string::npos);
  EXPECT_NE(CredentialProblems("credential: search", "methods: [GET]")
                .find("/egress/credentials/search: credential \"search\" is named by no egress.allow entry"),
            std::string::npos);
  // Exactly one source of the value; a header that is a token; no inline value.
  EXPECT_NE(CredentialProblems("value_env: SEARCH_KEY", "value_env: SEARCH_KEY\n      value_file: /x"), "");
  EXPECT_NE(CredentialProblems("      value_env: SEARCH_KEY\n", ""), "");
  EXPECT_NE(CredentialProblems("header: X-Api-Key", "header: \"X-Api-Key: x\""), "");
  EXPECT_NE(CredentialProblems("header: X-Api-Key", "header: \"X-Api-Key\\r\\nX: y\""), "");
  EXPECT_NE(CredentialProblems("prefix: \"Bearer \"", "prefix: \"Bearer\\r\\n\""), "");
  EXPECT_NE(CredentialProblems("value_env: SEARCH_KEY", "value: the-secret-itself"), "");
  EXPECT_NE(CredentialProblems("    search:", "    Search:"), "");
}

}  // namespace
}  // namespace volent::manifest
