// The shared TLS client context (http_exchange.h).
#include <boost/asio/ssl/context.hpp>

#include "volent/egress/http_exchange.h"

namespace volent::egress {

std::shared_ptr<boost::asio::ssl::context> MakeTlsClientContext() {
  try {
    auto ctx = std::make_shared<boost::asio::ssl::context>(boost::asio::ssl::context::tls_client);
    ctx->set_options(boost::asio::ssl::context::default_workarounds | boost::asio::ssl::context::no_sslv2 |
                     boost::asio::ssl::context::no_sslv3 | boost::asio::ssl::context::no_tlsv1 |
                     boost::asio::ssl::context::no_tlsv1_1);
    ctx->set_default_verify_paths();
    ctx->set_verify_mode(boost::asio::ssl::verify_peer);
    return ctx;
  } catch (const std::exception&) {
    return nullptr;
  }
}

}  // namespace volent::egress
