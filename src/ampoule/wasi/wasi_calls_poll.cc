// poll_oneoff over virtual time.
//
// Descriptors are always ready (stdin and files are in memory, output is
// captured), so a poll with any descriptor subscription returns at once.
// Otherwise the guest waits for its earliest clock subscription: virtual
// time jumps forward by exactly that much (WasiEnvironment::Sleep) and every
// clock subscription due by then fires, in subscription order.
#include <algorithm>
#include <vector>

#include "ampoule/wasi/wasi_calls.h"

namespace ampoule::wasi {

// Most subscriptions one call accepts; more is kInval (as poll() refuses
// more descriptors than a process may have).
constexpr uint32_t kMaxPollSubscriptions = 4096;

namespace {

using Kind = FdEntry::Kind;

struct Event {
  uint64_t userdata = 0;
  Errno error = Errno::kSuccess;
  uint8_t type = 0;
  uint64_t nbytes = 0;
  uint64_t wait_ns = 0;  // clock events: how long until due
  bool ready = false;    // due without waiting
};

// Readiness of `fd` for reading or writing.
Event FdEvent(WasiContext& ctx, uint32_t fd, uint8_t type) {
  Event ev;
  ev.type = type;
  ev.ready = true;
  FdEntry* e = ctx.fds().Get(fd);
  if (e == nullptr) {
    ev.error = Errno::kBadf;
  } else if (type == abi::kEventFdRead) {
    if (e->kind == Kind::kStdin) {
      ev.nbytes = ctx.stdin_bytes().size() -
                  std::min<uint64_t>(ctx.stdin_offset(), ctx.stdin_bytes().size());
    } else if (e->kind == Kind::kFile) {
      ev.nbytes = e->node->size() - std::min<uint64_t>(e->offset, e->node->size());
    } else {
      ev.error = Errno::kBadf;
    }
  } else if (e->kind == Kind::kFile) {
    if ((e->rights_base & abi::kRightFdWrite) == 0) ev.error = Errno::kBadf;
  } else if (e->kind != Kind::kStdout && e->kind != Kind::kStderr) {
    ev.error = Errno::kBadf;
  }
  return ev;
}

Errno ReadSubscription(WasiContext& ctx, GuestMemory& mem, u32 at, uint64_t fuel_used, Event* ev) {
  uint64_t userdata = 0;
  uint8_t tag = 0;
  AMP_WASI_TRY(mem.Read64(at, &userdata));
  AMP_WASI_TRY(mem.Read8(at + 8, &tag));
  if (tag == abi::kEventFdRead || tag == abi::kEventFdWrite) {
    uint32_t fd = 0;
    AMP_WASI_TRY(mem.Read32(at + abi::kSubFd, &fd));
    *ev = FdEvent(ctx, fd, tag);
  } else if (tag == abi::kEventClock) {
    uint32_t clock = 0;
    uint64_t timeout = 0;
    uint16_t flags = 0;
    AMP_WASI_TRY(mem.Read32(at + abi::kSubClockId, &clock));
    AMP_WASI_TRY(mem.Read64(at + abi::kSubClockTimeout, &timeout));
    AMP_WASI_TRY(mem.Read16(at + abi::kSubClockFlags, &flags));
    *ev = Event{};
    ev->type = tag;
    uint64_t now = 0;
    Errno e = ctx.env().Now(clock, fuel_used, &now);
    if (e != Errno::kSuccess) {
      ev->error = e;
      ev->ready = true;
    } else if (flags & abi::kSubclockAbstime) {
      ev->wait_ns = timeout > now ? timeout - now : 0;
    } else {
      ev->wait_ns = timeout;
    }
  } else {
    return Errno::kInval;
  }
  ev->userdata = userdata;
  return Errno::kSuccess;
}

Errno WriteEvent(GuestMemory& mem, u32 at, const Event& ev) {
  AMP_WASI_TRY(mem.Zero(at, abi::kEventSize));
  AMP_WASI_TRY(mem.Write64(at, ev.userdata));
  AMP_WASI_TRY(mem.Write16(at + 8, uint16_t(ev.error)));
  AMP_WASI_TRY(mem.Write8(at + 10, ev.type));
  return mem.Write64(at + 16, ev.nbytes);
}

}  // namespace

Errno PollOneoff(WasiContext& ctx, GuestMemory& mem, u32 in, u32 out, u32 nsubscriptions,
                 u32 nevents_out, u64 fuel_used) {
  if (nsubscriptions == 0 || nsubscriptions > kMaxPollSubscriptions) return Errno::kInval;
  if (!mem.InBounds(in, uint64_t(nsubscriptions) * abi::kSubscriptionSize) ||
      !mem.InBounds(out, uint64_t(nsubscriptions) * abi::kEventSize) ||
      !mem.InBounds(nevents_out, 4)) {
    return Errno::kFault;
  }
  std::vector<Event> events(nsubscriptions);
  bool any_ready = false;
  uint64_t min_wait = UINT64_MAX;
  for (u32 i = 0; i < nsubscriptions; ++i) {
    AMP_WASI_TRY(
        ReadSubscription(ctx, mem, in + i * abi::kSubscriptionSize, fuel_used, &events[i]));
    Event& ev = events[i];
    if (ev.type == abi::kEventClock && !ev.ready) {
      if (ev.wait_ns == 0)
        ev.ready = true;
      else
        min_wait = std::min(min_wait, ev.wait_ns);
    }
    any_ready |= ev.ready;
  }
  if (!any_ready) {
    ctx.env().Sleep(min_wait);
    for (Event& ev : events) ev.ready = ev.type == abi::kEventClock && ev.wait_ns <= min_wait;
  }
  u32 n = 0;
  for (const Event& ev : events) {
    if (!ev.ready) continue;
    AMP_WASI_TRY(WriteEvent(mem, out + n * abi::kEventSize, ev));
    ++n;
  }
  return mem.Write32(nevents_out, n);
}

}  // namespace ampoule::wasi
