// Journals the egress gate's denials (docs/egress.md: denied, and the
// denial journaled): the DenialSink the node gives its gate.
//
// Each denial is one journal entry of kind "egress-denied" with the payload
// {"capability","method","url","reason","hop","origin"}. Its key is the
// request's origin when that is a step's key ("AGENT/RUN/STEP": the denial
// sits beside the step that asked); a request with no such origin gets a
// key of its own under the agent "egress". A step is denied at most once
// (denials are not retried), so one entry per step key is enough; a step
// re-issued after a restart and denied again finds its first entry.
//
// A denial that cannot be journaled (the disk is full) is reported on
// stderr; the request is denied either way.
//
// Thread-safe: the sink may be called from any thread.
#pragma once

#include "volent/egress/gate.h"
#include "volent/journal/journal.h"

namespace volent::agent {

// REQUIRES: `journal` outlives the sink.
egress::DenialSink JournalDenials(journal::Journal& journal);

}  // namespace volent::agent
