#include "ampoule/mcp/http_session_table.h"

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/hex.h"

namespace ampoule::mcp {

std::string HttpSessionTable::NewId() {
  uint8_t bytes[16];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      // Without a random source an id could be guessed; serving on would
      // hand sessions to whoever guesses. There is no safe fallback.
      std::fputs("ampoule mcp: the kernel's random source failed; stopping\n", stderr);
      std::abort();
    }
    got += static_cast<size_t>(n);
  }
  return core::HexEncode(std::span<const uint8_t>(bytes));
}

bool HttpSessionTable::Add(const std::shared_ptr<HttpSession>& session) {
  std::lock_guard lock(mu_);
  if (entries_.size() >= capacity_ && !EvictOneLocked()) return false;
  do session->id = NewId();
  while (entries_.count(session->id) != 0);
  entries_[session->id] = Entry{session, 0, std::chrono::steady_clock::now()};
  return true;
}

bool HttpSessionTable::EvictOneLocked() {
  auto oldest = entries_.end();
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->second.in_flight != 0) continue;
    if (oldest == entries_.end() || it->second.last_used < oldest->second.last_used) oldest = it;
  }
  if (oldest == entries_.end()) return false;
  entries_.erase(oldest);
  return true;
}

std::shared_ptr<HttpSession> HttpSessionTable::Acquire(const std::string& id) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return nullptr;
  ++it->second.in_flight;
  it->second.last_used = std::chrono::steady_clock::now();
  return it->second.session;
}

void HttpSessionTable::Release(const std::string& id) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return;  // ended while the call ran
  if (it->second.in_flight > 0) --it->second.in_flight;
  it->second.last_used = std::chrono::steady_clock::now();
}

bool HttpSessionTable::Remove(const std::string& id) {
  std::lock_guard lock(mu_);
  return entries_.erase(id) != 0;
}

size_t HttpSessionTable::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

}  // namespace ampoule::mcp
