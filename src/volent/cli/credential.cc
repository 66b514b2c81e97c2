// `volent credential create`: a token made in a data folder before any node
// runs on it (docs/operator-guide.md, "8. The sealed image"). The sealed
// image's /data is made on the host, and its node's API is reached only
// from outside: the operator's first admin token has to exist before the
// first boot, since the bootstrap token the node would write stays inside
// the VM. The token is written to a new file (mode 0600), never printed;
// its creation is journaled like any other (control/credential_journal.h).
// It takes the data folder's lock (node/data_folder.h) first: beside a
// running node, which would overwrite credentials.json at its next change,
// it is refused and writes nothing.
//
// `volent credential certificate`: a client certificate for mutual TLS from
// the node's own CA (DATA_DIR/tls, made at the node's first start with TLS,
// or here): CN=NAME, one OU per role, which is what the node reads as the
// certificate's roles. Its key is written to a new file (mode 0600). The
// CA's key never leaves the data folder; revoking a certificate means
// replacing the CA (docs/operator-guide.md).
//
// Exit status: 0 made; 1 the store or the journal refused; 2 usage.
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "core/errno_text.h"
#include "core/file_write.h"
#include "volent/access/credentials.h"
#include "volent/access/principal.h"
#include "volent/access/tls_certificates.h"
#include "volent/cli/commands.h"
#include "volent/control/credential_journal.h"
#include "volent/journal/journal.h"
#include "volent/store/data_folder.h"

namespace volent::cli {
namespace {

constexpr char kCredentialUsage[] =
    "usage: volent credential create --data-dir DIR --name NAME --role ROLE [--role ROLE]...\n"
    "                                [--ttl-days N] -o TOKEN_FILE\n"
    "\n"
    "Makes a bearer token in DIR (credentials.json and the journal, made if missing) for a node\n"
    "that will run on DIR, and writes it to TOKEN_FILE (a new file, mode 0600). ROLE: reader,\n"
    "operator, approver or admin. --ttl-days: 1 to 366 (default 30). Refused while a node runs\n"
    "on DIR (it holds DIR/node.lock); a running node makes tokens through POST /v1/credentials.\n"
    "\n"
    "\n"
    "usage: volent credential certificate --data-dir DIR --name NAME --role ROLE [--role ROLE]...\n"
    "                                     [--days N] [--host HOST] -o PREFIX\n"
    "\n"
    "Issues a client certificate for mutual TLS from the node's own CA in DIR/tls (made, with\n"
    "the node's server certificate for HOST, if missing): subject CN=NAME with one OU per ROLE.\n"
    "Writes PREFIX.key (a new file, mode 0600) and PREFIX.crt; the CA clients trust is\n"
    "DIR/tls/ca.crt. --days: 1 to 825 (default 365). --host: the node's listen address, used\n"
    "only when the server certificate is made here (default 127.0.0.1).\n"
    "\n"
    "Exit status: 0 made, 1 refused (the message says why), 2 usage error.\n";

int Usage(const std::string& problem) {
  std::fprintf(stderr, "volent credential: %s\n\n%s", problem.c_str(), kCredentialUsage);
  return 2;
}

// The token file, made (empty, mode 0600) before the token: an existing
// file is refused before anything is made. The token replaces it durably
// (WriteSecret).
core::Status NewTokenFile(const std::string& path) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    const bool exists = errno == EEXIST;
    return core::Error{path + ": " + core::ErrnoText() + (exists ? " (remove it first)" : "")};
  }
  close(fd);
  return core::Status::Ok();
}

// Writes `text` over the file NewTokenFile made.
core::Status WriteSecret(const std::string& path, const std::string& text) {
  return core::WriteFileAtomically(path, text, 0600);
}

// What both actions take: --data-dir, --name, --role (repeatable), -o.
struct CommonOptions {
  std::string data_dir, out, name;
  std::vector<access::Role> roles;
};

// Parses `args` after the action. `own(option, value)` takes the action's
// own options: -1 when it took the option, 0 when it does not know it, or
// an exit code. Returns -1 to go on, else the exit code. Makes the data
// folder when everything required is there.
template <typename Own>
int ParseOptions(const Args& args, CommonOptions& o, Own own) {
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kCredentialUsage, stdout);
      return 0;
    }
    if (i + 1 >= args.size()) return Usage(a + " needs a value, or is not an option");
    const std::string& v = args[++i];
    if (a == "--data-dir") {
      o.data_dir = v;
    } else if (a == "-o") {
      o.out = v;
    } else if (a == "--name") {
      if (!access::IsValidCredentialName(v)) return Usage("--name: 1 to 100 printable bytes");
      o.name = v;
    } else if (a == "--role") {
      auto role = access::ParseRole(v);
      if (!role) return Usage("--role '" + v + "': reader, operator, approver or admin");
      o.roles.push_back(*role);
    } else if (int rc = own(a, v); rc != -1) {
      return rc == 0 ? Usage("unknown option '" + a + "'") : rc;
    }
  }
  if (o.data_dir.empty() || o.out.empty() || o.name.empty() || o.roles.empty()) {
    return Usage("--data-dir, --name, at least one --role and -o are required");
  }
  if (mkdir(o.data_dir.c_str(), 0700) != 0 && errno != EEXIST) {
    std::fprintf(stderr, "volent credential: %s: %s\n", o.data_dir.c_str(), core::ErrnoText().c_str());
    return 1;
  }
  return -1;
}

// The data folder's lock (node/data_folder.h), or null after saying why
// not: a running node would overwrite what is changed here under it.
std::unique_ptr<core::FolderLock> LockForChange(const std::string& data_dir, const std::string& action,
                                                         const std::string& instead) {
  auto lock = store::OpenDataFolder(data_dir, "volent credential " + action + ", pid " + std::to_string(getpid()));
  if (lock) return std::move(*lock);
  if (lock.kind() == core::ErrorKind::kConflict) {
    std::fprintf(stderr, "volent credential: refused, nothing was written: the data folder %s; %s\n",
                 lock.message().c_str(), instead.c_str());
  } else {
    std::fprintf(stderr, "volent credential: %s\n", lock.message().c_str());
  }
  return nullptr;
}

// A whole number of days from 1 to `max`, or nothing.
std::optional<long> Days(const std::string& v, long max) {
  char* end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < 1 || n > max) return std::nullopt;
  return n;
}

int CertificateCommand(const Args& args) {
  CommonOptions o;
  std::string host = "127.0.0.1";
  int days = 365;
  int parsed = ParseOptions(args, o, [&](const std::string& a, const std::string& v) {
    if (a == "--host") {
      host = v;
    } else if (a == "--days") {
      auto n = Days(v, 825);
      if (!n) return Usage("--days: 1 to 825");
      days = static_cast<int>(*n);
    } else {
      return 0;
    }
    return -1;
  });
  if (parsed != -1) return parsed;
  const std::string& data_dir = o.data_dir;
  const std::string& out = o.out;
  std::vector<std::string> roles;
  for (access::Role r : o.roles) roles.emplace_back(access::RoleName(r));
  // Issuing from an existing CA reads the data folder only (so it works
  // beside a running node); making the CA or the server certificate
  // changes it, and takes its lock.
  const access::NodeTlsPaths paths = access::NodeTlsPathsOf(data_dir);
  std::unique_ptr<core::FolderLock> lock;
  if (::access(paths.ca_certificate.c_str(), F_OK) != 0 || ::access(paths.certificate.c_str(), F_OK) != 0) {
    lock = LockForChange(data_dir, "certificate",
                         "the node's CA is made by the node at its start with TLS (control.tls), or here while "
                         "no node runs on the folder");
    if (!lock) return 1;
  }
  auto made_ca = access::EnsureNodeTls(data_dir, host);
  if (!made_ca) {
    std::fprintf(stderr, "volent credential: %s\n", made_ca.message().c_str());
    return 1;
  }
  auto issued = access::IssueClientCertificate(data_dir, o.name, roles, days);
  if (!issued) {
    std::fprintf(stderr, "volent credential: %s\n", issued.message().c_str());
    return 1;
  }
  const std::string key_path = out + ".key", cert_path = out + ".crt";
  if (auto reserved = NewTokenFile(key_path); !reserved.ok()) {
    std::fprintf(stderr, "volent credential: %s\n", reserved.message().c_str());
    return 1;
  }
  core::Status written = WriteSecret(key_path, issued->key_pem);
  if (written.ok()) {
    written = core::WriteFileAtomically(cert_path, issued->certificate_pem,
                                                 core::WriteOptions{.mode = 0644, .create_only = true});
  }
  if (!written.ok()) {
    unlink(key_path.c_str());
    std::fprintf(stderr, "volent credential: %s\n", written.message().c_str());
    return 1;
  }
  const access::NodeTlsPaths tls = access::NodeTlsPathsOf(data_dir);
  std::fprintf(stderr,
               "volent credential: certificate %s (sha256 %s) written to %s, its key to %s (mode 0600); "
               "clients trust %s\n",
               issued->subject.c_str(), issued->sha256.c_str(), cert_path.c_str(), key_path.c_str(),
               tls.ca_certificate.c_str());
  return 0;
}

}  // namespace

int CredentialCommand(const Args& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kCredentialUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "certificate") return CertificateCommand(args);
  if (args[0] != "create") return Usage("unknown action '" + args[0] + "' (known: create, certificate)");
  CommonOptions o;
  access::NewCredential request;
  request.created_by = "volent credential create (offline, on the data folder)";
  int parsed = ParseOptions(args, o, [&](const std::string& a, const std::string& v) {
    if (a != "--ttl-days") return 0;
    auto days = Days(v, 366);
    if (!days) return Usage("--ttl-days: 1 to 366");
    request.ttl_seconds = *days * 24 * 3600;
    return -1;
  });
  if (parsed != -1) return parsed;
  request.name = o.name;
  request.roles = o.roles;
  const std::string& data_dir = o.data_dir;
  const std::string& out = o.out;
  // Before anything is made: a node running on the folder would overwrite
  // credentials.json at its next change, and the token would be lost.
  auto lock = LockForChange(data_dir, "create",
                            "a running node makes tokens through its API: POST /v1/credentials with an admin "
                            "token (docs/control-api.md), or stop the node first");
  if (!lock) return 1;
  if (auto reserved = NewTokenFile(out); !reserved.ok()) {
    std::fprintf(stderr, "volent credential: %s\n", reserved.message().c_str());
    return 1;
  }
  auto fail = [&](const std::string& why) {
    unlink(out.c_str());
    std::fprintf(stderr, "volent credential: %s\n", why.c_str());
    return 1;
  };
  auto store = access::CredentialStore::Open(data_dir);
  if (!store) return fail(store.message());
  auto journal = journal::Journal::Open(data_dir, {});
  if (!journal) return fail("the journal in " + data_dir + ": " + journal.message());
  auto made = control::CreateJournaled(**store, **journal, request,
                                       {{"kind", "offline"}, {"tool", "volent credential create"}});
  if (!made) return fail(made.message());
  if (core::Status written = WriteSecret(out, made->second + "\n"); !written.ok()) {
    (void)(*store)->Revoke(made->first.id, "volent credential create (its token file could not be written)");
    return fail("the token was revoked, since " + out + " could not be written: " + written.message());
  }
  std::fprintf(stderr, "volent credential: token %s (%s) made in %s, written to %s (mode 0600)\n",
               made->first.id.c_str(), made->first.name.c_str(), data_dir.c_str(), out.c_str());
  return 0;
}

}  // namespace volent::cli
