#include "core/http/server.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <type_traits>
#include <vector>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "core/hex.h"
#include "core/http/read_header.h"

namespace core::httpd {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Duration = std::chrono::steady_clock::duration;

namespace {

std::string Chunk(std::string_view data) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  std::string out = size;
  out.append(data);
  out += "\r\n";
  return out;
}

}  // namespace

// One client connection, as Reply and the server see it.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  virtual ~Connection() = default;
  virtual const Peer& peer() const = 0;
  // An idle connection (no request begun) closes now; a busy one closes
  // after its answer.
  virtual void CloseIfIdle() = 0;
  // To make room at a cap: closes now unless a request header has arrived
  // since it was chosen (then it stays, and may be chosen again later).
  virtual void Evict() = 0;
  virtual void Send(Response response, Duration hold, std::function<void()> sent) = 0;
  virtual void StartStream(StreamHead head, Duration every, std::string heartbeat) = 0;
  virtual void EndStream(std::string last) = 0;

  // What the accept loop weighs when it must make room (written on the
  // connection's strand, read under State::mu by the accept loop).
  std::atomic<bool> waiting{true};     // for a request header (or the handshake before the first)
  std::atomic<bool> served{false};     // a whole request header has arrived on it
  std::atomic<bool> evicting{false};   // chosen to make room; closing
  std::atomic<int64_t> waiting_since{0};  // steady-clock ticks
};

// What the connections share with the server.
struct State {
  struct Slot {
    std::weak_ptr<Connection> connection;
    std::string source;  // the client's address
  };
  using Handle = std::list<Slot>::iterator;

  Handler* handler = nullptr;
  ServerOptions options;
  std::atomic<size_t> connections{0};
  std::atomic<bool> stopping{false};
  // Set while Run runs: only then may the last connection to close wake
  // the server (afterwards the io_context may be going away).
  std::atomic<bool> serving{false};
  std::function<void()> on_last_closed;
  std::mutex mu;  // guards live and per_source
  std::list<Slot> live;
  std::map<std::string, size_t, std::less<>> per_source;

  Handle Register(std::weak_ptr<Connection> connection, const std::string& source) {
    std::lock_guard lock(mu);
    ++per_source[source];
    return live.insert(live.end(), Slot{std::move(connection), source});
  }
  void Unregister(Handle handle) {
    {
      std::lock_guard lock(mu);
      auto it = per_source.find(handle->source);
      if (it != per_source.end() && --it->second == 0) per_source.erase(it);
      live.erase(handle);
    }
    if (--connections == 0 && stopping && serving) on_last_closed();
  }

  // Whether a new connection from `source` may come in: yes below both
  // caps; at a cap, yes if an idle connection (of `source`, when its own cap
  // is reached) can be closed to make room, and it is chosen: the one that
  // never sent a request before one that did, then the one waiting longest.
  // A connection whose request is being read or answered is never chosen,
  // so an operator's request in progress is not cut for a newcomer.
  bool Admit(const std::string& source) {
    // Declared before the lock: a connection whose last owner is this list
    // unregisters (takes mu) only once the lock is released.
    std::vector<std::shared_ptr<Connection>> seen;
    std::shared_ptr<Connection> victim;
    {
      std::lock_guard lock(mu);
      auto mine = per_source.find(source);
      const bool source_full = options.max_connections_per_source > 0 && mine != per_source.end() &&
                               mine->second >= options.max_connections_per_source;
      const bool all_full = connections >= options.max_connections;
      if (!source_full && !all_full) return true;
      for (const Slot& slot : live) {
        if (source_full && slot.source != source) continue;
        auto c = slot.connection.lock();
        if (!c) continue;
        seen.push_back(c);
        if (!c->waiting || c->evicting) continue;
        if (!victim || std::pair(c->served.load(), c->waiting_since.load()) <
                           std::pair(victim->served.load(), victim->waiting_since.load())) {
          victim = c;
        }
      }
      if (!victim) return false;
      victim->evicting = true;
    }
    victim->Evict();
    return true;
  }
};

namespace {

using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// The verified client certificate of a finished handshake, if any.
PeerCertificate PeerCertificateOf(SSL* ssl) {
  PeerCertificate out;
  X509* cert = SSL_get0_peer_certificate(ssl);
  // Only a certificate the context verified counts (a context that asks
  // for none, or verifies none, names nobody).
  if (cert == nullptr || SSL_get_verify_result(ssl) != X509_V_OK) return out;
  X509_NAME* name = X509_get_subject_name(cert);
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  if (!bio || X509_NAME_print_ex(bio.get(), name, 0, XN_FLAG_RFC2253) < 0) return out;
  char* text = nullptr;
  long length = BIO_get_mem_data(bio.get(), &text);
  if (length > 0 && text != nullptr) out.subject.assign(text, static_cast<size_t>(length));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_length = 0;
  if (X509_digest(cert, EVP_sha256(), digest, &digest_length) != 1) return out;
  out.sha256 = core::HexEncode(std::span<const uint8_t>(digest, digest_length));
  for (int i = -1; (i = X509_NAME_get_index_by_NID(name, NID_organizationalUnitName, i)) >= 0;) {
    ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
    unsigned char* utf8 = nullptr;
    int n = ASN1_STRING_to_UTF8(&utf8, data);
    if (n < 0) continue;
    out.units.emplace_back(reinterpret_cast<const char*>(utf8), static_cast<size_t>(n));
    OPENSSL_free(utf8);
  }
  // A time OpenSSL cannot read leaves the window empty (0, 0): refused.
  struct tm tm {};
  if (ASN1_TIME_to_tm(X509_get0_notBefore(cert), &tm) == 1) out.not_before = timegm(&tm);
  if (ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm) == 1) out.not_after = timegm(&tm);
  out.present = true;
  return out;
}

}  // namespace

// Requests one after another, each answered before the next is read, over
// Stream: a beast::tcp_stream, or TLS over one. Everything but the entry
// points from Reply runs on the connection's strand.
template <class Stream>
class StreamConnection : public Connection {
 public:
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

  template <class... StreamArgs>
  StreamConnection(std::shared_ptr<State> state, tcp::socket socket, StreamArgs&&... stream_args)
      : stream_(std::move(socket), std::forward<StreamArgs>(stream_args)...), hold_(stream_.get_executor()),
        heartbeat_(stream_.get_executor()),
        // Bounded: a header never needs more, and a body passes through.
        buffer_(state->options.header_limit + 8192), state_(std::move(state)) {
    boost::system::error_code ec;
    auto remote = Lowest().socket().remote_endpoint(ec);
    if (!ec) peer_.address = remote.address().to_string();
    // Newest, not oldest, until its wait begins on the strand.
    waiting_since = std::chrono::steady_clock::now().time_since_epoch().count();
  }

  const Peer& peer() const override { return peer_; }

  ~StreamConnection() override { state_->Unregister(handle_); }

  void Start() {
    handle_ = state_->Register(weak_from_this(), peer_.address);
    net::dispatch(stream_.get_executor(), [self = Self()] {
      if constexpr (kTls) {
        self->Handshake();
      } else {
        self->ReadHeader();
      }
    });
  }

  void CloseIfIdle() override {
    net::dispatch(stream_.get_executor(), [self = Self()] {
      if (!self->busy_ && self->buffer_.size() == 0) self->Close();
    });
  }

  void Evict() override {
    net::dispatch(stream_.get_executor(), [self = Self()] {
      if (!self->busy_ && self->waiting) return self->Close();
      self->evicting = false;
    });
  }

  void Send(Response response, Duration hold, std::function<void()> sent) override {
    auto message = std::make_shared<Response>(std::move(response));
    net::dispatch(stream_.get_executor(), [self = Self(), message, hold, sent = std::move(sent)] {
      if (hold <= Duration::zero()) return self->Write(message, sent, false);
      self->hold_.expires_after(hold);
      self->hold_.async_wait([self, message, sent](beast::error_code) { self->Write(message, sent, false); });
    });
  }

  void StartStream(StreamHead head, Duration every, std::string heartbeat) override {
    auto message = std::make_shared<StreamHead>(std::move(head));
    net::dispatch(stream_.get_executor(),
                  [self = Self(), message, every, heartbeat = Chunk(heartbeat)]() mutable {
                    self->BeginStream(message, every, std::move(heartbeat));
                  });
  }

  void EndStream(std::string last) override {
    net::dispatch(stream_.get_executor(),
                  [self = Self(), last = std::move(last)] { self->FinishStream(last); });
  }

 private:
  std::shared_ptr<StreamConnection> Self() { return std::static_pointer_cast<StreamConnection>(shared_from_this()); }
  beast::tcp_stream& Lowest() { return beast::get_lowest_layer(stream_); }

  // Waiting for a request header (or the handshake): under the header
  // deadline, and a connection the accept loop may close to make room.
  void AwaitHeader() {
    const auto now = std::chrono::steady_clock::now();
    request_began_ = now;
    waiting_since = now.time_since_epoch().count();
    waiting = true;
    Lowest().expires_after(std::min(state_->options.header_timeout, state_->options.read_timeout));
  }

  // TLS only: the handshake, within the header deadline, before any request.
  // Whatever fails (plain HTTP, no certificate where one is required, one
  // the CA did not sign) closes the connection unanswered. Not busy: a Stop
  // closes a connection still in its handshake like an idle one.
  void Handshake() {
    if (state_->stopping) return Close();
    AwaitHeader();
    stream_.async_handshake(net::ssl::stream_base::server, [self = Self()](beast::error_code ec) {
      if (ec) return self->Close();
      self->peer_.certificate = PeerCertificateOf(self->stream_.native_handle());
      self->ReadHeader();
    });
  }

  void ReadHeader() {
    if (state_->stopping) return Close();
    busy_ = false;
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(state_->options.header_limit));
    parser_->body_limit(state_->options.body_limit);
    // The header within header_timeout; the whole request within
    // read_timeout (OnHeader).
    AwaitHeader();
    AsyncReadCheckedHeader(stream_, buffer_, *parser_, state_->options.header_limit,
                           [self = Self()](beast::error_code ec, Status framing) {
                             // Where this request ends is unknown: nothing after it is read.
                             if (!framing.ok()) {
                               return self->Refuse(Refusal::Kind::kFraming, 400, framing.message());
                             }
                             self->OnHeader(ec);
                           });
  }

  void OnHeader(beast::error_code ec) {
    waiting = false;
    if (ec) return OnReadError(ec);
    busy_ = true;
    served = true;
    head_ = parser_->get().method() == http::verb::head;
    Lowest().expires_at(request_began_ + state_->options.read_timeout);
    auto length = parser_->content_length();
    if (length && *length > state_->options.body_limit) return Refuse(Refusal::Kind::kBodyTooLarge, 413, "");
    auto& req = parser_->get();
    auto expect = req.find(http::field::expect);
    if (expect != req.end() && beast::iequals(expect->value(), "100-continue") && !parser_->is_done()) {
      // The client waits for this before sending the body.
      auto cont = std::make_shared<std::string>("HTTP/1.1 100 Continue\r\n\r\n");
      net::async_write(stream_, net::buffer(*cont), [self = Self(), cont](beast::error_code ec, size_t) {
        if (ec) return self->Close();
        self->ReadBody();
      });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    http::async_read(stream_, buffer_, *parser_,
                     [self = Self()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void OnReadError(beast::error_code ec) {
    if (ec == http::error::body_limit) return Refuse(Refusal::Kind::kBodyTooLarge, 413, "");
    if (ec == http::error::header_limit) return Refuse(Refusal::Kind::kHeaderTooLarge, 431, "");
    if (ec.category() == http::make_error_code(http::error::bad_target).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message) {
      return Refuse(Refusal::Kind::kMalformed, 400, "");
    }
    Close();  // the client left, timed out, or the socket failed: nobody to answer
  }

  void OnRead(beast::error_code ec) {
    if (ec) return OnReadError(ec);
    // The handler may take its time (a worker, a timer); no read is pending.
    Lowest().expires_never();
    state_->handler->Handle(parser_->release(), Reply(Self()));
  }

  // Answers, then ends the connection (the rest of the request is unread).
  void Refuse(Refusal::Kind kind, int status, std::string reason) {
    busy_ = true;
    waiting = false;
    head_ = parser_ && parser_->get().method() == http::verb::head;
    // The start line may have been read even when the headers failed.
    Refusal refusal{kind, status, std::move(reason), parser_ ? std::string(parser_->get().target()) : ""};
    auto message = std::make_shared<Response>(state_->handler->Refuse(refusal));
    message->version(11);
    Write(message, {}, true);
  }

  // A whole response; then the next request, a drain, or the end.
  void Write(std::shared_ptr<Response> message, std::function<void()> sent, bool drain) {
    if (drain || state_->stopping) message->keep_alive(false);
    Lowest().expires_after(state_->options.write_timeout);
    auto done = [self = Self(), message, sent = std::move(sent), drain](beast::error_code ec, size_t) {
      if (sent) sent();
      if (ec) return self->Close();
      if (drain) return self->Drain();
      self->Next(message->keep_alive());
    };
    if (head_) {
      // HEAD: the status line and headers only (their Content-Length is the
      // body's), so a kept-alive client reads the next answer in step.
      auto serializer = std::make_shared<http::response_serializer<http::string_body>>(*message);
      http::async_write_header(stream_, *serializer,
                               [serializer, done = std::move(done)](beast::error_code ec, size_t n) { done(ec, n); });
      return;
    }
    http::async_write(stream_, *message, std::move(done));
  }

  void Next(bool keep_alive) {
    if (!keep_alive) return Close();
    ReadHeader();
  }

  // The stream's head now, a heartbeat whenever it has been quiet for
  // `every`, the last chunk when the handler ends it.
  void BeginStream(std::shared_ptr<StreamHead> head, Duration every, std::string heartbeat) {
    if (state_->stopping) head->keep_alive(false);
    head->chunked(true);
    stream_head_ = std::move(head);
    head_serializer_.emplace(*stream_head_);
    stream_keep_alive_ = stream_head_->keep_alive();
    heartbeat_every_ = every;
    heartbeat_chunk_ = std::move(heartbeat);
    stream_done_ = false;
    failed_ = false;
    writing_ = true;
    Lowest().expires_after(state_->options.write_timeout);
    http::async_write_header(stream_, *head_serializer_, [self = Self()](beast::error_code ec, size_t) {
      self->writing_ = false;
      if (ec) return self->Fail();
      self->Lowest().expires_never();
      self->Pump();
    });
    ArmHeartbeat();
  }

  void ArmHeartbeat() {
    heartbeat_.expires_after(heartbeat_every_);
    heartbeat_.async_wait([self = Self()](beast::error_code ec) {
      if (ec || self->stream_done_ || self->failed_) return;
      if (!self->writing_ && self->out_.empty()) {
        self->out_.push_back(self->heartbeat_chunk_);
        self->Pump();
      }
      self->ArmHeartbeat();
    });
  }

  void FinishStream(const std::string& last) {
    heartbeat_.cancel();
    if (failed_) return;  // the client left; the answer has nowhere to go
    stream_done_ = true;
    out_.push_back(Chunk(last));
    out_.push_back("0\r\n\r\n");
    Pump();
  }

  void Pump() {
    if (writing_ || failed_) return;
    if (head_) out_.clear();  // HEAD: the stream's head was its whole answer
    if (out_.empty()) {
      if (stream_done_) {
        stream_done_ = false;
        head_serializer_.reset();
        stream_head_.reset();
        Next(stream_keep_alive_);
      }
      return;
    }
    writing_ = true;
    Lowest().expires_after(state_->options.write_timeout);
    net::async_write(stream_, net::buffer(out_.front()), [self = Self()](beast::error_code ec, size_t) {
      self->writing_ = false;
      if (ec) return self->Fail();
      self->out_.pop_front();
      self->Lowest().expires_never();
      self->Pump();
    });
  }

  void Fail() {
    failed_ = true;
    out_.clear();
    heartbeat_.cancel();
    Close();
  }

  // After a refusal: half-close, read and drop what still comes (up to a
  // limit, for a time), then close, so the client reads the answer instead
  // of a reset caused by its unread bytes.
  void Drain() {
    boost::system::error_code ignored;
    Lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
    Lowest().expires_after(state_->options.drain_time);
    drained_ = 0;
    DrainSome();
  }

  void DrainSome() {
    scratch_.resize(16 * 1024);
    stream_.async_read_some(net::buffer(scratch_), [self = Self()](beast::error_code ec, size_t n) {
      self->drained_ += n;
      if (ec || self->drained_ > self->state_->options.drain_bytes) return self->Close();
      self->DrainSome();
    });
  }

  void Close() {
    boost::system::error_code ignored;
    Lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
    Lowest().socket().close(ignored);
  }

  Stream stream_;
  Peer peer_;
  net::steady_timer hold_;
  net::steady_timer heartbeat_;
  beast::flat_buffer buffer_;
  std::shared_ptr<State> state_;
  State::Handle handle_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool busy_ = false;  // a request has begun and is not answered yet
  bool head_ = false;  // the request being answered is a HEAD
  std::chrono::steady_clock::time_point request_began_;  // when its header was first awaited

  // A streamed response.
  std::shared_ptr<StreamHead> stream_head_;
  std::optional<http::response_serializer<http::empty_body>> head_serializer_;
  Duration heartbeat_every_{};
  std::string heartbeat_chunk_;
  std::deque<std::string> out_;
  bool writing_ = false;
  bool stream_done_ = false;
  bool stream_keep_alive_ = true;
  bool failed_ = false;

  // Draining after a refusal.
  std::vector<char> scratch_;
  size_t drained_ = 0;
};

void Reply::Send(Response response, Duration hold, std::function<void()> sent) const {
  connection_->Send(std::move(response), hold, std::move(sent));
}

void Reply::StartStream(StreamHead head, Duration every, std::string heartbeat) const {
  connection_->StartStream(std::move(head), every, std::move(heartbeat));
}

void Reply::EndStream(std::string last) const { connection_->EndStream(std::move(last)); }

const Peer& Reply::peer() const { return connection_->peer(); }

namespace {

class ServerImpl : public Server {
 public:
  ServerImpl(Handler& handler, const ServerOptions& options)
      : ioc_(options.threads), strand_(net::make_strand(ioc_)), acceptor_(strand_), retry_(strand_),
        grace_timer_(strand_), state_(std::make_shared<State>()) {
    state_->handler = &handler;
    state_->options = options;
    state_->on_last_closed = [this] { net::post(strand_, [this] { grace_timer_.cancel(); }); };
  }

  Status Listen() {
    const ServerOptions& options = state_->options;
    const std::string& prefix = options.error_prefix;
    std::string host = options.host == "localhost" ? "127.0.0.1" : options.host;
    boost::system::error_code ec;
    auto address = net::ip::make_address(host, ec);
    if (ec) {
      return Error{prefix + "'" + options.host +
                   "' is not an IP address; use 127.0.0.1 (this machine only) or an address of this machine"};
    }
    if (options.port < 0 || options.port > 65535) {
      return Error{prefix + "port " + std::to_string(options.port) + " is out of range (0-65535)"};
    }
    tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      return Error{"cannot listen on " + options.host + ":" + std::to_string(options.port) + ": " + ec.message() +
                   " (pick another port, or 0 for any free one)"};
    }
    port_ = acceptor_.local_endpoint().port();
    loopback_ = address.is_loopback();
    return Status::Ok();
  }

  int port() const override { return port_; }
  bool loopback() const override { return loopback_; }

  void CatchSignals() override {
    if (signals_) return;
    signals_.emplace(strand_, SIGINT, SIGTERM);
    signals_->async_wait([this](boost::system::error_code ec, int) {
      if (!ec) Stop();
    });
  }

  void Run() override {
    state_->serving = true;
    Accept();
    std::vector<std::thread> extra;
    for (int i = 1; i < state_->options.threads; ++i) extra.emplace_back([this] { ioc_.run(); });
    ioc_.run();
    for (auto& t : extra) t.join();
    state_->serving = false;
  }

  void Stop() override {
    net::post(strand_, [this] {
      if (state_->stopping.exchange(true)) return;
      state_->handler->Stopping();
      boost::system::error_code ignored;
      acceptor_.close(ignored);
      retry_.cancel();
      if (signals_) signals_->cancel();
      std::vector<std::shared_ptr<Connection>> open;
      {
        std::lock_guard lock(state_->mu);
        for (auto& slot : state_->live) {
          if (auto c = slot.connection.lock()) open.push_back(std::move(c));
        }
      }
      if (open.empty() && state_->connections == 0) return;  // Run returns: nothing is left to do
      for (auto& c : open) c->CloseIfIdle();
      // Requests in flight get this long; then Run returns regardless.
      grace_timer_.expires_after(state_->options.stop_grace);
      grace_timer_.async_wait([this](boost::system::error_code ec) {
        if (!ec) ioc_.stop();
      });
    });
  }

 private:
  void Accept() {
    acceptor_.async_accept(net::make_strand(ioc_), [this](boost::system::error_code ec, tcp::socket socket) {
      if (!acceptor_.is_open() || state_->stopping) return;
      if (ec) {
        // Out of descriptors, say: wait a little rather than spin.
        retry_.expires_after(std::chrono::milliseconds(100));
        retry_.async_wait([this](boost::system::error_code ec) {
          if (!ec) Accept();
        });
        return;
      }
      boost::system::error_code remote_error;
      auto remote = socket.remote_endpoint(remote_error);
      const std::string source = remote_error ? std::string() : remote.address().to_string();
      if (!state_->Admit(source)) {
        boost::system::error_code ignored;
        socket.close(ignored);
      } else {
        ++state_->connections;
        if (state_->options.tls) {
          std::make_shared<StreamConnection<TlsStream>>(state_, std::move(socket), *state_->options.tls)->Start();
        } else {
          std::make_shared<StreamConnection<beast::tcp_stream>>(state_, std::move(socket))->Start();
        }
      }
      Accept();
    });
  }

  net::io_context ioc_;
  // The listening side (acceptor, timers, signals, Stop) runs on one strand:
  // with more than one I/O thread, Stop must not close the acceptor while an
  // accept completes on another thread.
  net::strand<net::io_context::executor_type> strand_;
  tcp::acceptor acceptor_;
  net::steady_timer retry_;
  net::steady_timer grace_timer_;
  std::optional<net::signal_set> signals_;
  std::shared_ptr<State> state_;
  int port_ = 0;
  bool loopback_ = true;
};

}  // namespace

Result<std::unique_ptr<Server>> Server::Bind(Handler& handler, const ServerOptions& options) {
  auto server = std::make_unique<ServerImpl>(handler, options);
  CORE_RETURN_IF_ERROR(server->Listen());
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace core::httpd
