// The node's own certificates for the control API's TLS
// (docs/decisions/0040-control-api-authentication.md): a CA of the node's,
// the server certificate it signs, and the client certificates it issues to
// operators (`volent credential certificate`). Everything lives in
// DATA_DIR/tls: ca.key (0600), ca.crt, server.key (0600), server.crt.
// Keys are EC P-256, signatures ECDSA with SHA-256 (what every TLS client
// takes). A node configured with files of its own (control.tls.certificate,
// key, client_ca) uses none of this.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"

namespace volent::access {

struct NodeTlsPaths {
  std::string dir;             // DATA_DIR/tls
  std::string ca_certificate;  // ca.crt
  std::string ca_key;          // ca.key
  std::string certificate;     // server.crt
  std::string key;             // server.key
};
NodeTlsPaths NodeTlsPathsOf(const std::string& data_dir);

// Makes what is missing in DATA_DIR/tls: the CA (valid 10 years), then a
// server certificate it signs (825 days) naming `host` (an IP address or a
// DNS name; 0.0.0.0 and :: name none) and always localhost, 127.0.0.1 and
// ::1 as subjectAltName. Existing files are kept as they are (delete
// server.crt and server.key to make them anew, for another address), but
// only as trust files: DATA_DIR/tls and each of them must be the node's
// user's (or root's), not writable by group or others, and not links
// (core/file_read.h), else an error says what to chmod or chown.
// Returns whether anything was made.
core::Result<bool> EnsureNodeTls(const std::string& data_dir, const std::string& host);

struct IssuedCertificate {
  std::string key_pem;          // its private key (PKCS#8 PEM)
  std::string certificate_pem;  // signed by the node's CA
  std::string subject;          // RFC 2253, as the server will see it
  std::string sha256;           // lowercase hex SHA-256 of its DER
};

// A client certificate from the node's CA in DATA_DIR/tls (which must
// exist: the node makes it at its first start with TLS, or EnsureNodeTls):
// subject CN=`name` and one OU per entry of `units` (the roles), client
// authentication only, valid `days` days from an hour ago.
core::Result<IssuedCertificate> IssueClientCertificate(const std::string& data_dir, const std::string& name,
                                                          const std::vector<std::string>& units, int days);

}  // namespace volent::access
