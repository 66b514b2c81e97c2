#include "volent/control/tls_context.h"

#include <openssl/ssl.h>

#include <boost/asio/ssl/context.hpp>

#include "volent/access/tls_certificates.h"

namespace volent::control {

namespace ssl = boost::asio::ssl;

core::Result<ServerTls> MakeServerTls(const manifest::ControlConfig& config, const std::string& data_dir,
                                         const std::string& host, const std::function<void(const std::string&)>& note) {
  const access::NodeTlsPaths own = access::NodeTlsPathsOf(data_dir);
  if (config.tls_certificate.empty() != config.tls_key.empty()) {
    return core::Error{"control.tls: certificate and key go together (name both, or neither for the node's own)",
                          core::ErrorKind::kInvalidArgument};
  }
  const bool own_server = config.tls_certificate.empty();
  const bool own_ca = config.mtls && config.tls_client_ca.empty();
  if (own_server || own_ca) {
    auto made = access::EnsureNodeTls(data_dir, host);
    if (!made) return core::Error{"the node's TLS files in " + own.dir + ": " + made.message()};
    if (*made && note) {
      note("made the node's CA and server certificate in " + own.dir + " (ca.crt: the CA clients trust; client "
           "certificates: volent credential certificate)");
    }
  }
  ServerTls out;
  out.certificate = own_server ? own.certificate : config.tls_certificate;
  const std::string key = own_server ? own.key : config.tls_key;
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = context->native_handle();
  // TLS 1.2 and 1.3 only; no renegotiation, no compression.
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_options(native, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  boost::system::error_code ec;
  context->use_certificate_chain_file(out.certificate, ec);
  if (ec) return core::Error{"control.tls.certificate " + out.certificate + ": " + ec.message()};
  context->use_private_key_file(key, ssl::context::pem, ec);
  if (ec) {
    return core::Error{"control.tls.key " + key + ": " + ec.message() + " (a PEM private key, the one of " +
                          out.certificate + ")"};
  }
  if (SSL_CTX_check_private_key(native) != 1) {
    return core::Error{"control.tls: the key " + key + " is not the certificate's (" + out.certificate + ")"};
  }
  if (config.mtls) {
    out.client_ca = own_ca ? own.ca_certificate : config.tls_client_ca;
    context->load_verify_file(out.client_ca, ec);
    if (ec) return core::Error{"control.tls.client_ca " + out.client_ca + ": " + ec.message()};
    // The CA names go in the handshake's certificate request, so a client
    // with several certificates picks the right one.
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(out.client_ca.c_str());
    if (names != nullptr) SSL_CTX_set_client_CA_list(native, names);
    // auth mtls: no certificate, no connection. tokens+mtls: a client
    // without one still connects, and shows a token.
    int mode = SSL_VERIFY_PEER | (config.tokens ? 0 : SSL_VERIFY_FAIL_IF_NO_PEER_CERT);
    SSL_CTX_set_verify(native, mode, nullptr);
    // Sessions resumed across connections must keep the verified identity.
    static const unsigned char kSessionContext[] = "volent-control";
    SSL_CTX_set_session_id_context(native, kSessionContext, sizeof kSessionContext - 1);
  } else {
    SSL_CTX_set_verify(native, SSL_VERIFY_NONE, nullptr);
  }
  out.context = std::move(context);
  return out;
}

}  // namespace volent::control
