// The TLS setting of the control API's server (control.tls, control.auth
// mtls or tokens+mtls; docs/decisions/0040-control-api-authentication.md):
// the server certificate and key, TLS 1.2 at least, and, when client
// certificates are accepted, their verification against the client CA
// (required with auth mtls, optional with tokens+mtls, where a token works
// too). Files the configuration names are used as they are; what it leaves
// out is the node's own, made in DATA_DIR/tls at the first start
// (tls_certificates.h).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/result.h"
#include "volent/manifest/manifest.h"

namespace boost::asio::ssl {
class context;
}

namespace volent::control {

struct ServerTls {
  std::shared_ptr<boost::asio::ssl::context> context;
  std::string certificate;  // the files in use, for the operator
  std::string client_ca;    // "" when client certificates are not asked for
};

// `host`: the address the node listens on (the subjectAltName of a server
// certificate the node makes). `note` hears where the node's own files were
// made, once.
core::Result<ServerTls> MakeServerTls(const manifest::ControlConfig& config, const std::string& data_dir,
                                         const std::string& host, const std::function<void(const std::string&)>& note);

}  // namespace volent::control
