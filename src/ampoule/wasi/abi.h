// The wasi_snapshot_preview1 ABI: numbers and struct layouts the guest sees.
//
// Values are fixed by the WASI preview 1 witx definitions (wasm32: pointers
// and sizes are 32-bit little-endian, structs use natural alignment). The
// host never lays these out with C++ structs: every field is written at its
// documented offset through GuestMemory, so host padding or endianness can
// never leak into guest memory.
#pragma once

#include <cstdint>

namespace ampoule::wasi::abi {

// clockid
constexpr uint32_t kClockRealtime = 0;
constexpr uint32_t kClockMonotonic = 1;
constexpr uint32_t kClockProcessCputime = 2;
constexpr uint32_t kClockThreadCputime = 3;

// filetype
constexpr uint8_t kFiletypeUnknown =
    0;  // also what stdin/stdout/stderr report: byte streams, not terminals
constexpr uint8_t kFiletypeCharacterDevice = 2;
constexpr uint8_t kFiletypeDirectory = 3;
constexpr uint8_t kFiletypeRegularFile = 4;
constexpr uint8_t kFiletypeSymbolicLink = 7;

// whence
constexpr uint8_t kWhenceSet = 0;
constexpr uint8_t kWhenceCur = 1;
constexpr uint8_t kWhenceEnd = 2;

// advice: 0 (normal) .. 5 (noreuse)
constexpr uint8_t kAdviceMax = 5;

// fdflags
constexpr uint16_t kFdflagAppend = 1 << 0;
constexpr uint16_t kFdflagDsync = 1 << 1;
constexpr uint16_t kFdflagNonblock = 1 << 2;
constexpr uint16_t kFdflagRsync = 1 << 3;
constexpr uint16_t kFdflagSync = 1 << 4;
constexpr uint16_t kFdflagsAll = 0x1F;

// oflags
constexpr uint16_t kOflagCreat = 1 << 0;
constexpr uint16_t kOflagDirectory = 1 << 1;
constexpr uint16_t kOflagExcl = 1 << 2;
constexpr uint16_t kOflagTrunc = 1 << 3;
constexpr uint16_t kOflagsAll = 0x0F;

// lookupflags
constexpr uint32_t kLookupSymlinkFollow = 1 << 0;

// fstflags
constexpr uint16_t kFstflagAtim = 1 << 0;
constexpr uint16_t kFstflagAtimNow = 1 << 1;
constexpr uint16_t kFstflagMtim = 1 << 2;
constexpr uint16_t kFstflagMtimNow = 1 << 3;
constexpr uint16_t kFstflagsAll = 0x0F;

// subclockflags
constexpr uint16_t kSubclockAbstime = 1 << 0;

// eventtype
constexpr uint8_t kEventClock = 0;
constexpr uint8_t kEventFdRead = 1;
constexpr uint8_t kEventFdWrite = 2;

// preopentype
constexpr uint8_t kPreopenDir = 0;

// rights (a 64-bit set)
constexpr uint64_t kRightFdDatasync = 1ull << 0;
constexpr uint64_t kRightFdRead = 1ull << 1;
constexpr uint64_t kRightFdSeek = 1ull << 2;
constexpr uint64_t kRightFdFdstatSetFlags = 1ull << 3;
constexpr uint64_t kRightFdSync = 1ull << 4;
constexpr uint64_t kRightFdTell = 1ull << 5;
constexpr uint64_t kRightFdWrite = 1ull << 6;
constexpr uint64_t kRightFdAdvise = 1ull << 7;
constexpr uint64_t kRightFdAllocate = 1ull << 8;
constexpr uint64_t kRightPathCreateDirectory = 1ull << 9;
constexpr uint64_t kRightPathCreateFile = 1ull << 10;
constexpr uint64_t kRightPathLinkSource = 1ull << 11;
constexpr uint64_t kRightPathLinkTarget = 1ull << 12;
constexpr uint64_t kRightPathOpen = 1ull << 13;
constexpr uint64_t kRightFdReaddir = 1ull << 14;
constexpr uint64_t kRightPathReadlink = 1ull << 15;
constexpr uint64_t kRightPathRenameSource = 1ull << 16;
constexpr uint64_t kRightPathRenameTarget = 1ull << 17;
constexpr uint64_t kRightPathFilestatGet = 1ull << 18;
constexpr uint64_t kRightPathFilestatSetSize = 1ull << 19;
constexpr uint64_t kRightPathFilestatSetTimes = 1ull << 20;
constexpr uint64_t kRightFdFilestatGet = 1ull << 21;
constexpr uint64_t kRightFdFilestatSetSize = 1ull << 22;
constexpr uint64_t kRightFdFilestatSetTimes = 1ull << 23;
constexpr uint64_t kRightPathSymlink = 1ull << 24;
constexpr uint64_t kRightPathRemoveDirectory = 1ull << 25;
constexpr uint64_t kRightPathUnlinkFile = 1ull << 26;
constexpr uint64_t kRightPollFdReadwrite = 1ull << 27;
constexpr uint64_t kRightSockShutdown = 1ull << 28;
constexpr uint64_t kRightSockAccept = 1ull << 29;
constexpr uint64_t kRightsAll = (1ull << 30) - 1;

// Struct sizes and field offsets (bytes).
// iovec / ciovec: buf u32 @0, buf_len u32 @4.
constexpr uint32_t kIovecSize = 8;
// fdstat: filetype u8 @0, flags u16 @2, rights_base u64 @8, rights_inheriting u64 @16.
constexpr uint32_t kFdstatSize = 24;
// filestat: dev @0, ino @8, filetype u8 @16, nlink @24, size @32, atim @40, mtim @48, ctim @56.
constexpr uint32_t kFilestatSize = 64;
// dirent: d_next u64 @0, d_ino u64 @8, d_namlen u32 @16, d_type u8 @20; the name follows.
constexpr uint32_t kDirentSize = 24;
// prestat: tag u8 @0, pr_name_len u32 @4.
constexpr uint32_t kPrestatSize = 8;
// subscription: userdata u64 @0, tag u8 @8, union @16.
constexpr uint32_t kSubscriptionSize = 48;
// event: userdata u64 @0, error u16 @8, type u8 @10, nbytes u64 @16, flags u16 @24.
constexpr uint32_t kEventSize = 32;

// Subscription union, clock variant (offsets from the subscription start).
constexpr uint32_t kSubClockId = 16;         // u32
constexpr uint32_t kSubClockTimeout = 24;    // u64
constexpr uint32_t kSubClockPrecision = 32;  // u64
constexpr uint32_t kSubClockFlags = 40;      // u16
// Subscription union, fd_read / fd_write variant.
constexpr uint32_t kSubFd = 16;  // u32

}  // namespace ampoule::wasi::abi
