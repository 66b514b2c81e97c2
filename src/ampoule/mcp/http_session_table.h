// The sessions of the HTTP transport, by Mcp-Session-Id.
//
// An id is 32 lowercase hex digits from the kernel's random source (128
// bits): unguessable, so holding one is what makes a caller that session.
// The table holds at most `capacity` sessions; adding one to a full table
// ends the session used longest ago that has no call in flight (a client
// that vanished without DELETE must not pin memory forever). Ending a
// session removes its id at once; calls already running finish and are
// answered, since they hold their own reference.
//
// Thread-safe: the network thread and the workers share one table.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "ampoule/mcp/server.h"

namespace ampoule::mcp {

// A session with its bookkeeping. Handle may run on several workers at once.
struct HttpSession {
  std::string id;
  std::unique_ptr<Session> session;
};

class HttpSessionTable {
 public:
  explicit HttpSessionTable(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  // A fresh id, never issued before by this table (128 random bits).
  static std::string NewId();

  // Adds a session under a new id (set in session->id). False when the
  // table is full and every session has a call in flight.
  bool Add(const std::shared_ptr<HttpSession>& session);

  // The session named by id, marked in use until Release; nullptr if the id
  // is unknown or ended.
  std::shared_ptr<HttpSession> Acquire(const std::string& id);
  void Release(const std::string& id);

  // Ends a session; false if the id is unknown or already ended.
  bool Remove(const std::string& id);

  size_t size() const;

 private:
  struct Entry {
    std::shared_ptr<HttpSession> session;
    size_t in_flight = 0;
    std::chrono::steady_clock::time_point last_used;
  };
  bool EvictOneLocked();

  const size_t capacity_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace ampoule::mcp
