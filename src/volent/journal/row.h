// Reading one journal row from SQLite, checking each column's type, so a
// damaged row is an error value rather than a wrong entry. Internal to
// src/volent/journal.
#pragma once

#include "core/result.h"
#include "volent/journal/entry.h"

struct sqlite3_stmt;

namespace volent::journal {

// The columns every query of entries selects, in this order.
inline constexpr char kEntryColumns[] =
    "seq, kind, agent, run_id, step, effect_key, payload, time_ms, prev_hash, hash";

// The current row of `stmt` (columns as kEntryColumns) as an Entry, or an
// error naming the first column of the wrong type or value.
core::Result<Entry> ReadRow(sqlite3_stmt* stmt);

}  // namespace volent::journal
