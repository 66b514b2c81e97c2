// The egress gate: the steps of gate.h, per hop, on the gate's io_context.
//
// A request in flight is a Flight: it judges its current hop synchronously
// (URL, method, headers, allowlist; for an IP literal also the address rule)
// and then waits, without a thread, for the name's resolution or for the
// exchange. Each step starts the next, so a flight's state is only ever
// touched by one thread at a time, handed over by Asio's post/completion
// (which orders memory). The one race, a resolver answering while the
// resolution's deadline fires, is settled on a strand (ResolveWait).
//
// Every flight holds a work guard on its io_context until it is destroyed,
// after its callback returned: the io_context's run() therefore cannot end
// while a flight is under way, which is how the gate's destructor waits.
#include "volent/egress/gate.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "volent/egress/allowlist.h"
#include "volent/egress/headers.h"
#include "volent/egress/http_exchange.h"
#include "volent/egress/location.h"
#include "volent/egress/resolve.h"
#include "volent/egress/url.h"

namespace volent::egress {
namespace {

namespace net = boost::asio;
using WorkGuard = net::executor_work_guard<net::io_context::executor_type>;

constexpr int kMaxRedirectsCeiling = 20;

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

bool IsAnyOf(std::string_view name, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) {
    if (EqualsIgnoreCase(name, n)) return true;
  }
  return false;
}

// Headers that carry credentials: dropped when a redirect leaves the origin.
bool IsCredentialHeader(std::string_view name) {
  return IsAnyOf(name, {"authorization", "proxy-authorization", "cookie", "x-api-key"});
}

// Headers that describe a body: dropped with the body when a redirect turns
// the request into a GET (as the Fetch standard does).
bool IsBodyHeader(std::string_view name) {
  return IsAnyOf(name, {"content-type", "content-encoding", "content-language", "content-location"});
}

bool IsFollowedStatus(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

// A Location that could not be read, as it may be shown and journaled:
// bytes that are not printable ASCII percent-encoded.
std::string Printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x21 || c >= 0x7f) {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

bool SameOrigin(const Url& a, const Url& b) { return a.scheme == b.scheme && a.host == b.host && a.port == b.port; }

// The gate whose I/O thread this is, if any: Send on such a thread must not
// wait for that gate's threads (with one thread, it would wait for itself).
thread_local const void* tl_io_gate = nullptr;

// What flights read of the gate: read-only once made.
struct GateCore {
  std::vector<manifest::AllowEntry> allowlist;
  GateOptions options;
  std::shared_ptr<net::ssl::context> tls;
};

}  // namespace

struct Gate::Impl : GateCore {
  Impl(std::vector<manifest::AllowEntry> allowlist_in, GateOptions options_in);
  void RunIo();
  void Shutdown();
  bool OnIoThread() const { return tl_io_gate == this; }
  // Starts a request on `on` (the gate's io_context, or a private one for
  // Send on an I/O thread); `done` is called exactly once.
  void Launch(net::io_context& on, std::string_view capability, HttpRequest request, SendCallback done) const;

  net::io_context ioc;
  std::optional<WorkGuard> idle_guard;  // keeps the threads running while nothing is in flight
  std::vector<std::thread> threads;
  std::string thread_error;             // when no thread could be started
  std::atomic<bool> stopping{false};
  // The gate destroyed on one of its own I/O threads (a callback dropped the
  // last owner) cannot join its threads: they are detached, and the last one
  // to leave run() deletes the Impl.
  std::atomic<size_t> running{0};
  std::atomic<bool> orphaned{false};
};

namespace {

// One request, hop after hop (see the top of this file).
class Flight : public std::enable_shared_from_this<Flight> {
 public:
  Flight(const GateCore& gate, net::io_context& ioc, std::string_view capability, HttpRequest&& request,
         Gate::SendCallback&& done)
      : gate_(gate),
        ioc_(ioc),
        work_(net::make_work_guard(ioc)),
        capability_(capability),
        origin_(std::move(request.origin)),
        method_(std::move(request.method)),
        url_text_(std::move(request.url)),
        headers_(std::move(request.headers)),
        max_response_bytes_(request.max_response_bytes),
        timeout_ms_(request.timeout_ms),
        max_redirects_(request.max_redirects),
        done_(std::move(done)) {
    if (!request.body.empty()) body_ = std::make_shared<const std::string>(std::move(request.body));
  }

  void Start() {
    if (timeout_ms_ <= 0) return Deny("timeout_ms must be at least 1");
    if (max_redirects_ < -1) return Deny("max_redirects must be -1 (the gate's default) or 0 and more");
    deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms_);
    if (max_redirects_ == -1) max_redirects_ = gate_.options.max_redirects;
    Hop();
  }

  // Called on the resolution's strand once, with the answer or the timeout.
  void OnResolved(Candidates candidates, Resolved resolved) {
    if (!resolved.error.empty()) {
      return Stop(Outcome::kNotSent, "could not resolve " + url_->host + ": " + resolved.error);
    }
    OnAddresses(candidates, std::move(resolved.addresses));
  }

 private:
  // The current hop, judged from the top.
  void Hop() {
    core::Result<Url> parsed = ParseUrl(url_text_);
    if (!parsed.ok()) return Deny(parsed.message());
    url_ = std::move(*parsed);
    if (hop_ == 0) first_url_ = url_;
    if (!IsToken(method_)) return Deny("method \"" + method_ + "\" is not a token (e.g. GET, POST)");
    core::Result<Headers> filtered = FilterHeaders(headers_);
    if (!filtered.ok()) return Deny(filtered.message());
    hop_headers_ = std::move(*filtered);
    Candidates candidates = MatchRequest(gate_.allowlist, capability_, *url_, method_);
    if (candidates.entries.empty()) return Deny(candidates.deny_reason);
    if (url_->ip) return OnAddresses(candidates, {*url_->ip});
    Resolve(std::move(candidates));
  }

  void Resolve(Candidates candidates);  // below: needs ResolveWait

  void OnAddresses(const Candidates& candidates, std::vector<net::ip::address> addresses) {
    Judgement judgement = JudgeCandidates(candidates, addresses);
    if (judgement.entry == nullptr) return Deny(url_->host + ": " + judgement.deny_reason);
    hop_credential_ = nullptr;
    if (const std::string& name = judgement.entry->credential; !name.empty()) {
      auto it = gate_.options.credentials.find(name);
      if (it == gate_.options.credentials.end()) {
        return Deny("the allowlist entry allowing " + url_->ToString() + " names credential \"" + name +
                    "\", which this node has not loaded");
      }
      // Fixed by the request the caller made: a redirect elsewhere, or to
      // an entry of another credential, goes without.
      if (hop_ == 0) credential_ = &it->second;
      if (credential_ == &it->second && SameOrigin(*first_url_, *url_)) hop_credential_ = credential_;
    }
    if (hop_credential_ != nullptr) {
      for (const auto& [header, value] : hop_headers_) {
        if (EqualsIgnoreCase(header, hop_credential_->header)) {
          return Deny("the request sets header \"" + header + "\", which the node writes from credential \"" +
                      hop_credential_->name + "\" for this allowlist entry: leave it out (a tool may neither set " +
                      "nor read it)");
        }
      }
      hop_headers_.emplace_back(hop_credential_->header, hop_credential_->value);
      result_.credential = hop_credential_->name;
    }
    Exchange exchange;
    exchange.url = *url_;
    exchange.address = addresses.front();  // pinned: the address judged is the address used
    exchange.method = method_;
    exchange.headers = std::move(hop_headers_);
    exchange.body = body_;
    exchange.max_response_bytes = max_response_bytes_;
    exchange.deadline = deadline_;
    exchange.tls = gate_.tls.get();
    StartExchange(ioc_, std::move(exchange),
                  [self = shared_from_this()](SendResult r) { self->OnExchanged(std::move(r)); });
  }

  void OnExchanged(SendResult r) {
    // Before anything of the answer is read (a Location too): a service
    // that echoes the request gives its caller the mark, not the secret.
    if (credential_ != nullptr && !result_.credential.empty()) RedactAnswer(r);
    result_.outcome = r.outcome;
    result_.reason = std::move(r.reason);
    result_.pinned_address = std::move(r.pinned_address);
    result_.response = std::move(r.response);
    if (r.outcome != Outcome::kAnswered) {
      // After the first hop something was sent already (the request that
      // was redirected): whatever happens next, it is not "nothing sent".
      if (hop_ > 0 && result_.outcome == Outcome::kNotSent) result_.outcome = Outcome::kFailed;
      if (hop_ > 0) result_.reason = HopPrefix() + result_.reason;
      return Deliver();
    }
    const int status = result_.response.status;
    std::vector<const std::string*> locations;
    for (const auto& [name, value] : result_.response.headers) {
      if (EqualsIgnoreCase(name, "location")) locations.push_back(&value);
    }
    if (!IsFollowedStatus(status) || locations.empty() || max_redirects_ == 0) return Deliver();
    const std::string raw_location = *locations.front();
    const size_t location_count = locations.size();
    const std::string location = Printable(raw_location);
    const std::string from = url_->ToString();
    if (hop_ >= max_redirects_) {
      result_.outcome = Outcome::kFailed;
      result_.reason = "stopped after " + std::to_string(max_redirects_) + " redirect" +
                       (max_redirects_ == 1 ? "" : "s") + " (the limit): HTTP " + std::to_string(status) + " from " +
                       from + " to " + location + " was not followed";
      return Deliver();
    }
    ++hop_;
    result_.pinned_address.clear();
    result_.response = {};
    if (location_count > 1) {
      url_text_ = location;
      result_.redirects.push_back(location);
      return Deny("HTTP " + std::to_string(status) + " from " + from + " has " + std::to_string(location_count) +
                  " Location headers; a redirect must name one target");
    }
    core::Result<std::string> target = ResolveLocation(*url_, raw_location);
    if (!target.ok()) {
      url_text_ = location;
      result_.redirects.push_back(location);
      return Deny("HTTP " + std::to_string(status) + " from " + from + ": " + target.message());
    }
    url_text_ = std::move(*target);
    result_.redirects.push_back(url_text_);
    // 303 asks for a GET of another resource; 301 and 302 after a POST are
    // taken the same way (as every browser does); 307 and 308 repeat the
    // request as it was.
    if ((status == 303 && method_ != "HEAD") || ((status == 301 || status == 302) && method_ == "POST")) {
      method_ = "GET";
      body_.reset();
      std::erase_if(headers_, [](const auto& h) { return IsBodyHeader(h.first); });
    }
    core::Result<Url> next = ParseUrl(url_text_);
    if (!next.ok() || !SameOrigin(*url_, *next)) {
      std::erase_if(headers_, [](const auto& h) { return IsCredentialHeader(h.first); });
    }
    Hop();
  }

  void RedactAnswer(SendResult& r) const {
    const std::string mark = RedactedMark(credential_->name);
    const std::string& secret = credential_->secret;
    Redact(r.reason, secret, mark);
    for (auto& [name, value] : r.response.headers) {
      Redact(name, secret, mark);
      Redact(value, secret, mark);
    }
    Redact(r.response.body, secret, mark);
  }

  std::string HopPrefix() const {
    return "redirect " + std::to_string(hop_) + " (" + url_text_ + "): ";
  }

  void Deny(std::string reason) {
    if (hop_ > 0) reason = HopPrefix() + reason;
    result_.outcome = Outcome::kDenied;
    result_.reason = reason;
    result_.pinned_address.clear();
    result_.response = {};
    if (gate_.options.on_denial) {
      Denial denial{capability_, method_, url_text_, std::move(reason), origin_, hop_};
      try {
        gate_.options.on_denial(denial);
      } catch (...) {
        // A sink must not throw (gate.h); the caller still gets its answer.
      }
    }
    Deliver();
  }

  void Stop(Outcome outcome, std::string reason) {
    result_.outcome = outcome;
    result_.reason = std::move(reason);
    if (hop_ > 0) {
      if (outcome == Outcome::kNotSent) result_.outcome = Outcome::kFailed;
      result_.reason = HopPrefix() + result_.reason;
    }
    Deliver();
  }

  void Deliver() {
    Gate::SendCallback done = std::move(done_);
    done_ = nullptr;
    if (done) done(std::move(result_));
  }

  const GateCore& gate_;
  net::io_context& ioc_;
  WorkGuard work_;
  const std::string capability_;
  const std::string origin_;
  std::string method_;
  std::string url_text_;  // the current hop's URL as given (request, or resolved Location)
  Headers headers_;       // the caller's, less what redirects dropped
  std::shared_ptr<const std::string> body_;
  const size_t max_response_bytes_;
  const int timeout_ms_;
  int max_redirects_;
  Gate::SendCallback done_;
  std::chrono::steady_clock::time_point deadline_;
  int hop_ = 0;
  std::optional<Url> url_;
  std::optional<Url> first_url_;                // the caller's request's: the one origin a credential goes to
  const HeaderCredential* credential_ = nullptr;      // the credential of the entry that allowed the caller's request
  const HeaderCredential* hop_credential_ = nullptr;  // the credential added to the current hop, if any
  Headers hop_headers_;
  SendResult result_;
};

// What the resolver's callback holds: a way to hand the answer to the
// io_context, taken away (under the mutex) once the wait is settled. After
// that the io_context may be gone, so a late answer must touch nothing of it.
struct LookupSlot {
  std::mutex mutex;
  std::function<void(Resolved)> deliver;
};

// One resolution, waited for until the deadline: whichever of the answer
// and the timer comes first settles it, on the strand.
struct ResolveWait : std::enable_shared_from_this<ResolveWait> {
  ResolveWait(net::io_context& ioc, std::shared_ptr<Flight> flight_in, Candidates candidates_in)
      : strand(net::make_strand(ioc)),
        timer(strand),
        flight(std::move(flight_in)),
        candidates(std::move(candidates_in)),
        slot(std::make_shared<LookupSlot>()) {}

  void Settle(Resolved resolved) {
    if (settled) return;
    settled = true;
    {
      std::lock_guard<std::mutex> lock(slot->mutex);
      slot->deliver = nullptr;  // breaks the cycle wait -> slot -> deliver -> wait
    }
    timer.cancel();
    std::shared_ptr<Flight> f = std::move(flight);
    f->OnResolved(std::move(candidates), std::move(resolved));
  }

  net::strand<net::io_context::executor_type> strand;
  net::steady_timer timer;
  bool settled = false;  // on the strand only
  std::shared_ptr<Flight> flight;
  Candidates candidates;
  std::shared_ptr<LookupSlot> slot;
};

void Flight::Resolve(Candidates candidates) {
  auto wait = std::make_shared<ResolveWait>(ioc_, shared_from_this(), std::move(candidates));
  wait->slot->deliver = [wait](Resolved resolved) {
    net::post(wait->strand, [wait, resolved = std::move(resolved)]() mutable { wait->Settle(std::move(resolved)); });
  };
  wait->timer.expires_at(deadline_);
  wait->timer.async_wait([wait](const boost::system::error_code& ec) {
    if (ec == net::error::operation_aborted) return;
    Resolved late;
    late.error = "no answer within the time limit";
    wait->Settle(std::move(late));
  });
  std::shared_ptr<LookupSlot> slot = wait->slot;
  auto answer = [slot](Resolved resolved) {
    std::lock_guard<std::mutex> lock(slot->mutex);
    if (slot->deliver) slot->deliver(std::move(resolved));
  };
  try {
    ResolveHostAsync(url_->host, deadline_, gate_.options.dns_server, answer);
  } catch (const std::exception& e) {
    Resolved failed;
    failed.error = std::string("the lookup could not start: ") + e.what();
    answer(std::move(failed));
  }
}

}  // namespace

Gate::Impl::Impl(std::vector<manifest::AllowEntry> allowlist_in, GateOptions options_in)
    : GateCore{std::move(allowlist_in), options_in,
               options_in.tls_client ? options_in.tls_client : MakeTlsClientContext()},
      ioc(static_cast<int>(std::max<size_t>(options.io_threads, 1))) {
  options.max_redirects = std::clamp(options.max_redirects, 0, kMaxRedirectsCeiling);
  options.io_threads = std::max<size_t>(options.io_threads, 1);
  idle_guard.emplace(net::make_work_guard(ioc));
  for (size_t i = 0; i < options.io_threads; ++i) {
    ++running;
    try {
      threads.emplace_back([this] { RunIo(); });
    } catch (const std::system_error& e) {
      --running;
      thread_error = e.what();
      break;  // run with the threads there are
    }
  }
}

void Gate::Impl::RunIo() {
  tl_io_gate = this;
  for (;;) {
    try {
      ioc.run();
      break;
    } catch (...) {
      // A callback threw (they must not, gate.h); the other flights go on.
    }
  }
  tl_io_gate = nullptr;
  // Orphaned is set before any run() can end (the destructor runs inside a
  // handler, which counts as work), so the last thread out sees it.
  if (running.fetch_sub(1) == 1 && orphaned.load()) delete this;
}

void Gate::Impl::Shutdown() {
  stopping = true;
  bool on_own_thread = false;
  for (const std::thread& t : threads) on_own_thread = on_own_thread || t.get_id() == std::this_thread::get_id();
  if (on_own_thread) orphaned = true;
  idle_guard.reset();  // run() ends once the flights under way are over
  for (std::thread& t : threads) {
    if (on_own_thread) {
      t.detach();  // joining would wait for the handler this very call runs in
    } else {
      t.join();
    }
  }
}

void Gate::Impl::Launch(net::io_context& on, std::string_view capability, HttpRequest request,
                        SendCallback done) const {
  std::make_shared<Flight>(*this, on, capability, std::move(request), std::move(done))->Start();
}

Gate::Gate(std::vector<manifest::AllowEntry> allowlist, GateOptions options)
    : impl_(std::make_unique<Impl>(std::move(allowlist), std::move(options))) {}

Gate::~Gate() {
  impl_->Shutdown();
  if (impl_->orphaned) impl_.release();  // the last of its threads deletes it
}

SendResult Gate::Send(std::string_view capability, const HttpRequest& request) const {
  if (impl_->OnIoThread() || impl_->threads.empty()) {
    // On one of this gate's own threads (a SendAsync callback calling Send),
    // waiting for the gate's threads could wait for this very thread: run
    // the request here instead, on a private io_context.
    net::io_context private_ioc(1);
    SendResult out;
    impl_->Launch(private_ioc, capability, request, [&out](SendResult r) { out = std::move(r); });
    private_ioc.run();
    return out;
  }
  std::promise<SendResult> promise;
  std::future<SendResult> future = promise.get_future();
  SendAsync(capability, request, [&promise](SendResult r) { promise.set_value(std::move(r)); });
  return future.get();
}

void Gate::SendAsync(std::string_view capability, HttpRequest request, SendCallback done) const {
  if (impl_->stopping || impl_->threads.empty()) {
    SendResult refused;
    refused.outcome = Outcome::kNotSent;
    refused.reason = impl_->stopping ? "the egress gate is shutting down"
                                     : "the egress gate has no I/O thread (" + impl_->thread_error + ")";
    done(std::move(refused));
    return;
  }
  impl_->Launch(impl_->ioc, capability, std::move(request), std::move(done));
}

}  // namespace volent::egress
