#include "volent/journal/row.h"

#include <sqlite3.h>

#include <string>

namespace volent::journal {
namespace {

constexpr const char* kNames[] = {"seq",        "kind",    "agent",   "run_id",    "step",
                                  "effect_key", "payload", "time_ms", "prev_hash", "hash"};

core::Error WrongType(int column, std::string_view expected) {
  return core::Error{std::string("column ") + kNames[column] + " is not " + std::string(expected)};
}

core::Result<std::string> Text(sqlite3_stmt* stmt, int column) {
  if (sqlite3_column_type(stmt, column) != SQLITE_TEXT) return WrongType(column, "text");
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, column));
  if (!text) return WrongType(column, "text");
  return std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt, column)));
}

core::Result<int64_t> Integer(sqlite3_stmt* stmt, int column) {
  if (sqlite3_column_type(stmt, column) != SQLITE_INTEGER) return WrongType(column, "an integer");
  return static_cast<int64_t>(sqlite3_column_int64(stmt, column));
}

}  // namespace

core::Result<Entry> ReadRow(sqlite3_stmt* stmt) {
  Entry e;
  auto seq = Integer(stmt, 0);
  if (!seq) return seq.error();
  if (*seq < 1) return core::Error{"column seq is not a positive number"};
  e.seq = static_cast<uint64_t>(*seq);
  auto kind = Text(stmt, 1);
  if (!kind) return kind.error();
  auto parsed = ParseKind(*kind);
  if (!parsed) return core::Error{"column kind has an unknown kind '" + kind->substr(0, 40) + "'"};
  e.kind = *parsed;
  auto agent = Text(stmt, 2);
  if (!agent) return agent.error();
  e.agent = std::move(*agent);
  auto run = Text(stmt, 3);
  if (!run) return run.error();
  e.run = std::move(*run);
  auto step = Integer(stmt, 4);
  if (!step) return step.error();
  if (*step < 0) return core::Error{"column step is negative"};
  e.step = static_cast<uint64_t>(*step);
  auto key = Text(stmt, 5);
  if (!key) return key.error();
  e.key = std::move(*key);
  auto payload = Text(stmt, 6);
  if (!payload) return payload.error();
  e.payload = std::move(*payload);
  auto time = Integer(stmt, 7);
  if (!time) return time.error();
  e.time_ms = *time;
  auto prev = Text(stmt, 8);
  if (!prev) return prev.error();
  e.prev_hash = std::move(*prev);
  auto hash = Text(stmt, 9);
  if (!hash) return hash.error();
  e.hash = std::move(*hash);
  return e;
}

}  // namespace volent::journal
