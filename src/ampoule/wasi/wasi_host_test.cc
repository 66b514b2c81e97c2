// The WASI calls, driven through the host functions the glue registers,
// against a memory made by hand (no interpreter involved).
#include "ampoule/wasi/wasi_host.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "ampoule/wasi/abi.h"
#include "ampoule/wasi/wasi_calls.h"

namespace ampoule::wasi {
namespace {

using wasm::HostResult;

std::vector<uint8_t> Bytes(std::string_view s) { return std::vector<uint8_t>(s.begin(), s.end()); }

constexpr uint32_t E(Errno e) { return uint32_t(e); }

wasm::Import MakeImport(std::string module, std::string name,
                        wasm::ExternKind kind = wasm::ExternKind::Func) {
  wasm::Import imp;
  imp.module = std::move(module);
  imp.name = std::move(name);
  imp.kind = kind;
  return imp;
}

class WasiHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(mailbox_.AddPreopen("/input").ok());
    ASSERT_TRUE(mailbox_.AddFile("/input", "hello.txt", Bytes("hello, world\n")).ok());
    ASSERT_TRUE(mailbox_.AddFile("/input", "sub/b.txt", Bytes("bee")).ok());
    ASSERT_TRUE(mailbox_.AddFile("/input", "sub/c.txt", Bytes("sea")).ok());
    stdin_ = Bytes("line one\nline two\n");
    config_.args = {"prog", "x", "yz"};
    config_.env = {"A=1", "HOME=/input"};
    config_.stdin_bytes = stdin_;
    config_.mailbox = &mailbox_;
    config_.stdout_cap = 32;
    config_.epoch_ns = 1234;
    Rebuild();
    mem_ = store_.AddMemory(wasm::MemoryType{{1, 1}});
  }
  // A fresh context (and host functions bound to it) over the mailbox.
  void Rebuild() {
    ASSERT_TRUE(ValidateWasiConfig(config_).ok());
    host_.reset();
    ctx_ = std::make_unique<WasiContext>(config_, env_);
    host_ = std::make_unique<WasiHost>(store_, *ctx_);
  }

  HostResult Invoke(std::string_view name, std::vector<uint64_t> args, uint32_t* errno_out,
                    wasm::MemoryInstance* memory) {
    wasm::FunctionInstance* f = host_->Find(name);
    EXPECT_NE(f, nullptr) << name;
    if (f == nullptr) return HostResult::Trap("missing");
    EXPECT_EQ(args.size(), f->type->params.size()) << name;
    args.resize(f->type->params.size());
    uint64_t result = 0xDEAD;
    wasm::HostContext hc{store_, nullptr, memory};
    HostResult r = f->host(hc, args, std::span<uint64_t>(&result, f->type->results.size()));
    *errno_out = uint32_t(result);
    return r;
  }
  uint32_t Call(std::string_view name, std::vector<uint64_t> args) {
    uint32_t e = 0;
    HostResult r = Invoke(name, std::move(args), &e, mem_);
    EXPECT_EQ(r.kind, HostResult::Kind::kOk) << name;
    return e;
  }

  uint8_t* At(uint32_t p) { return mem_->data.data() + p; }
  void Put(uint32_t p, std::string_view s) { memcpy(At(p), s.data(), s.size()); }
  std::string Get(uint32_t p, uint32_t n) { return std::string(reinterpret_cast<char*>(At(p)), n); }
  void Put32(uint32_t p, uint32_t v) {
    for (int i = 0; i < 4; ++i) At(p)[i] = uint8_t(v >> (8 * i));
  }
  uint32_t U32(uint32_t p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(At(p)[i]) << (8 * i);
    return v;
  }
  uint64_t U64(uint32_t p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(At(p)[i]) << (8 * i);
    return v;
  }
  void Iovec(uint32_t at, uint32_t buf, uint32_t len) {
    Put32(at, buf);
    Put32(at + 4, len);
  }

  // Opens `path` under the preopen (fd 3) for reading; returns the new fd.
  uint32_t Open(std::string_view path, uint32_t oflags = 0,
                uint64_t rights = abi::kRightFdRead | abi::kRightFdSeek | abi::kRightFdTell |
                                  abi::kRightFdReaddir | abi::kRightFdFilestatGet |
                                  abi::kRightFdAdvise) {
    Put(2000, path);
    uint32_t e = Call("path_open", {3, 0, 2000, path.size(), oflags, rights, rights, 0, 2100});
    EXPECT_EQ(e, 0u) << path << ": " << ErrnoName(Errno(e));
    return U32(2100);
  }

  Mailbox mailbox_;
  std::vector<uint8_t> stdin_;
  WasiConfig config_;
  DeterministicEnvironment env_{{.seed = 7, .epoch_ns = 1'000'000, .ns_per_fuel = 1}};
  std::unique_ptr<WasiContext> ctx_;
  wasm::Store store_;
  std::unique_ptr<WasiHost> host_;
  wasm::MemoryInstance* mem_ = nullptr;
};

TEST_F(WasiHostTest, AllPreview1FunctionsResolveWithTheirTypes) {
  std::vector<std::string_view> names = WasiFunctionNames();
  EXPECT_EQ(names.size(), 46u);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (std::string_view n : names) EXPECT_NE(host_->Find(n), nullptr) << n;
  EXPECT_EQ(host_->Find("nonexistent"), nullptr);
  using V = wasm::ValType;
  const wasm::FuncType* open = host_->Find("path_open")->type;
  EXPECT_EQ(open->params, (std::vector<V>{V::I32, V::I32, V::I32, V::I32, V::I32, V::I64, V::I64,
                                          V::I32, V::I32}));
  EXPECT_EQ(open->results, std::vector<V>{V::I32});
  EXPECT_TRUE(host_->Find("proc_exit")->type->results.empty());
  EXPECT_EQ(host_->Find("clock_time_get")->type->params, (std::vector<V>{V::I32, V::I64, V::I32}));
}

TEST_F(WasiHostTest, LinkImportsNamesUnknownImports) {
  wasm::Module m;
  m.imports = {MakeImport("wasi_snapshot_preview1", "fd_write")};
  core::Result<std::vector<wasm::Extern>> linked = host_->LinkImports(m);
  ASSERT_TRUE(linked.ok());
  EXPECT_EQ((*linked)[0].func, host_->Find("fd_write"));
  m.imports.push_back(MakeImport("env", "foo"));
  linked = host_->LinkImports(m);
  ASSERT_FALSE(linked.ok());
  EXPECT_NE(linked.message().find("\"env\" \"foo\""), std::string::npos) << linked.message();
  m.imports = {MakeImport("wasi_snapshot_preview1", "memory", wasm::ExternKind::Memory)};
  EXPECT_FALSE(host_->LinkImports(m).ok());
}

TEST_F(WasiHostTest, ArgsAndEnviron) {
  ASSERT_EQ(Call("args_sizes_get", {100, 104}), 0u);
  EXPECT_EQ(U32(100), 3u);
  EXPECT_EQ(U32(104), 10u);  // "prog\0x\0yz\0"
  ASSERT_EQ(Call("args_get", {200, 300}), 0u);
  EXPECT_EQ(U32(200), 300u);
  EXPECT_EQ(U32(204), 305u);
  EXPECT_EQ(U32(208), 307u);
  EXPECT_EQ(Get(300, 10), std::string("prog\0x\0yz\0", 10));
  ASSERT_EQ(Call("environ_sizes_get", {100, 104}), 0u);
  EXPECT_EQ(U32(100), 2u);
  EXPECT_EQ(U32(104), 16u);
  ASSERT_EQ(Call("environ_get", {200, 300}), 0u);
  EXPECT_EQ(Get(U32(204), 11), std::string("HOME=/input\0", 11));
  // A buffer that runs off the end of memory: nothing written, EFAULT.
  memset(At(65530), 0x55, 6);
  EXPECT_EQ(Call("args_get", {200, 65530}), E(Errno::kFault));
  EXPECT_EQ(Get(65530, 6), std::string(6, '\x55'));
}

TEST_F(WasiHostTest, WriteToStdoutAndStderrIsCapturedWithCap) {
  Put(500, "hello ");
  Put(600, "world\n");
  Iovec(100, 500, 6);
  Iovec(108, 600, 6);
  ASSERT_EQ(Call("fd_write", {1, 100, 2, 120}), 0u);
  EXPECT_EQ(U32(120), 12u);
  ASSERT_EQ(Call("fd_write", {2, 108, 1, 120}), 0u);
  EXPECT_EQ(ctx_->stdout_capture().data(), "hello world\n");
  EXPECT_EQ(ctx_->stderr_capture().data(), "world\n");
  // Past the 32-byte cap the guest still sees success; the record is cut.
  for (int i = 0; i < 5; ++i) ASSERT_EQ(Call("fd_write", {1, 100, 2, 120}), 0u);
  EXPECT_EQ(U32(120), 12u);
  EXPECT_EQ(ctx_->stdout_capture().data().size(), 32u);
  EXPECT_EQ(ctx_->stdout_capture().total_bytes(), 72u);
  EXPECT_TRUE(ctx_->stdout_capture().truncated());
  // Not writable: stdin, a preopened directory, an unknown fd.
  EXPECT_EQ(Call("fd_write", {0, 100, 1, 120}), E(Errno::kBadf));
  EXPECT_EQ(Call("fd_write", {3, 100, 1, 120}), E(Errno::kBadf));
  EXPECT_EQ(Call("fd_write", {77, 100, 1, 120}), E(Errno::kBadf));
}

TEST_F(WasiHostTest, GuestPointersAreBoundsChecked) {
  uint64_t before = ctx_->stdout_capture().total_bytes();
  Iovec(100, 65530, 16);  // buffer crosses the end of memory
  EXPECT_EQ(Call("fd_write", {1, 100, 1, 120}), E(Errno::kFault));
  Iovec(100, 0xFFFFFFF8u, 16);  // ptr + len wraps in 32 bits
  EXPECT_EQ(Call("fd_write", {1, 100, 1, 120}), E(Errno::kFault));
  EXPECT_EQ(Call("fd_write", {1, 65532, 1, 120}), E(Errno::kFault));  // the iovec itself
  Iovec(100, 500, 4);
  EXPECT_EQ(Call("fd_write", {1, 100, 1, 65534}), E(Errno::kFault));         // the result pointer
  EXPECT_EQ(Call("fd_write", {1, 100, 0x20000000, 120}), E(Errno::kInval));  // absurd iovec count
  EXPECT_EQ(ctx_->stdout_capture().total_bytes(), before);
  EXPECT_EQ(Call("random_get", {65000, 1000}), E(Errno::kFault));
  EXPECT_EQ(Call("clock_time_get", {0, 0, 65532}), E(Errno::kFault));
  EXPECT_EQ(Call("fd_fdstat_get", {1, 65530}), E(Errno::kFault));
  EXPECT_EQ(Call("fd_filestat_get", {1, 0xFFFFFFFFu}), E(Errno::kFault));
  EXPECT_EQ(Call("poll_oneoff", {65500, 100, 2, 120}), E(Errno::kFault));
  EXPECT_EQ(Call("path_open", {3, 0, 65530, 100, 0, 0, 0, 0, 120}), E(Errno::kFault));
  EXPECT_EQ(Call("fd_readdir", {3, 65000, 1000, 0, 120}), E(Errno::kFault));
  EXPECT_EQ(Call("fd_prestat_dir_name", {3, 65535, 6}), E(Errno::kFault));
}

TEST_F(WasiHostTest, NoMemoryMeansEveryPointerFaults) {
  uint32_t e = 0;
  Invoke("args_sizes_get", {0, 4}, &e, nullptr);
  EXPECT_EQ(e, E(Errno::kFault));
  Invoke("random_get", {0, 0}, &e, nullptr);
  EXPECT_EQ(e, 0u);  // an empty range at 0 is fine even without memory
}

TEST_F(WasiHostTest, ReadsStdinToEndOfFile) {
  Iovec(100, 500, 5);
  Iovec(108, 600, 4);
  ASSERT_EQ(Call("fd_read", {0, 100, 2, 120}), 0u);
  EXPECT_EQ(U32(120), 9u);
  EXPECT_EQ(Get(500, 5) + Get(600, 4), "line one\n");
  Iovec(100, 500, 100);
  ASSERT_EQ(Call("fd_read", {0, 100, 1, 120}), 0u);
  EXPECT_EQ(U32(120), 9u);
  EXPECT_EQ(Get(500, 9), "line two\n");
  ASSERT_EQ(Call("fd_read", {0, 100, 1, 120}), 0u);
  EXPECT_EQ(U32(120), 0u);  // end of file
  EXPECT_EQ(Call("fd_read", {1, 100, 1, 120}), E(Errno::kBadf));
  EXPECT_EQ(Call("fd_seek", {0, 0, abi::kWhenceSet, 120}), E(Errno::kSpipe));
}

TEST_F(WasiHostTest, PreopenIsDescribed) {
  ASSERT_EQ(Call("fd_prestat_get", {3, 100}), 0u);
  EXPECT_EQ(At(100)[0], abi::kPreopenDir);
  EXPECT_EQ(U32(104), 6u);
  EXPECT_EQ(Call("fd_prestat_dir_name", {3, 200, 3}), E(Errno::kNameTooLong));
  ASSERT_EQ(Call("fd_prestat_dir_name", {3, 200, 6}), 0u);
  EXPECT_EQ(Get(200, 6), "/input");
  EXPECT_EQ(Call("fd_prestat_get", {4, 100}), E(Errno::kBadf));  // what libc's scan stops at
  EXPECT_EQ(Call("fd_prestat_get", {1, 100}), E(Errno::kBadf));
}

TEST_F(WasiHostTest, OpenReadSeekAndStatAFile) {
  uint32_t fd = Open("hello.txt");
  EXPECT_EQ(fd, 4u);
  Iovec(100, 500, 5);
  ASSERT_EQ(Call("fd_read", {fd, 100, 1, 120}), 0u);
  EXPECT_EQ(Get(500, 5), "hello");
  ASSERT_EQ(Call("fd_tell", {fd, 130}), 0u);
  EXPECT_EQ(U64(130), 5u);
  ASSERT_EQ(Call("fd_seek", {fd, uint64_t(-6), abi::kWhenceEnd, 130}), 0u);
  EXPECT_EQ(U64(130), 7u);
  ASSERT_EQ(Call("fd_read", {fd, 100, 1, 120}), 0u);
  EXPECT_EQ(Get(500, 5), "world");
  EXPECT_EQ(Call("fd_seek", {fd, uint64_t(-100), abi::kWhenceCur, 130}), E(Errno::kInval));
  EXPECT_EQ(Call("fd_seek", {fd, 0, 9, 130}), E(Errno::kInval));
  ASSERT_EQ(Call("fd_pread", {fd, 100, 1, 1, 120}), 0u);
  EXPECT_EQ(Get(500, 5), "ello,");
  ASSERT_EQ(Call("fd_tell", {fd, 130}), 0u);
  EXPECT_EQ(U64(130), 12u);  // pread does not move the position

  ASSERT_EQ(Call("fd_filestat_get", {fd, 200}), 0u);
  EXPECT_EQ(At(216)[0], abi::kFiletypeRegularFile);
  EXPECT_EQ(U64(232), 13u);    // size
  EXPECT_EQ(U64(248), 1234u);  // mtim: the run's file time
  ASSERT_EQ(Call("fd_fdstat_get", {fd, 300}), 0u);
  EXPECT_EQ(At(300)[0], abi::kFiletypeRegularFile);
  EXPECT_EQ(U64(308) & abi::kRightFdWrite, 0u);

  ASSERT_EQ(Call("fd_close", {fd}), 0u);
  EXPECT_EQ(Call("fd_read", {fd, 100, 1, 120}), E(Errno::kBadf));
  EXPECT_EQ(Call("fd_close", {fd}), E(Errno::kBadf));
}

TEST_F(WasiHostTest, OpenRefusesWhatPosixRefuses) {
  uint64_t read = abi::kRightFdRead;
  uint64_t write = abi::kRightFdWrite;
  auto open = [&](std::string_view path, uint32_t oflags, uint64_t rights) {
    Put(2000, path);
    return Call("path_open", {3, 0, 2000, path.size(), oflags, rights, 0, 0, 2100});
  };
  EXPECT_EQ(open("hello.txt", abi::kOflagCreat | abi::kOflagExcl, read), E(Errno::kExist));
  EXPECT_EQ(open("sub", 0, write), E(Errno::kIsDir));
  EXPECT_EQ(open("sub", abi::kOflagTrunc, read), E(Errno::kIsDir));
  EXPECT_EQ(open("hello.txt", abi::kOflagDirectory, read), E(Errno::kNotDir));
  EXPECT_EQ(open("missing/new.txt", abi::kOflagCreat, write), E(Errno::kNoEnt));
  EXPECT_EQ(open("new/", abi::kOflagCreat, write), E(Errno::kIsDir));
  EXPECT_EQ(open("../etc/passwd", 0, read), E(Errno::kPerm));  // escapes: EPERM, as wasmtime
  EXPECT_EQ(open("/etc/passwd", 0, read), E(Errno::kPerm));
  EXPECT_EQ(open("nope", 0, read), E(Errno::kNoEnt));
  EXPECT_EQ(open("hello.txt", 0x100, read), E(Errno::kInval));
  EXPECT_EQ(Call("path_create_directory", {1, 2000, 3}), E(Errno::kNotDir));
  EXPECT_EQ(Call("path_create_directory", {99, 2000, 3}), E(Errno::kBadf));

  // Opened for reading only: every write is EBADF, as POSIX says.
  uint32_t fd = Open("hello.txt");
  EXPECT_EQ(Call("fd_write", {fd, 100, 0, 120}), E(Errno::kBadf));
  EXPECT_EQ(Call("fd_pwrite", {fd, 100, 0, 0, 120}), E(Errno::kBadf));
  EXPECT_EQ(Call("fd_allocate", {fd, 0, 10}), E(Errno::kBadf));
  EXPECT_EQ(Call("fd_filestat_set_size", {fd, 0}), E(Errno::kBadf));
  EXPECT_EQ(Call("fd_sync", {fd}), 0u);
  EXPECT_EQ(Call("fd_datasync", {1}), E(Errno::kInval));
}

TEST_F(WasiHostTest, WritesChangeTheRunsCopyOnly) {
  uint64_t rw = abi::kRightFdRead | abi::kRightFdWrite | abi::kRightFdSeek |
                abi::kRightFdFilestatSetSize | abi::kRightFdFilestatGet;
  Put(2000, "new.txt");
  ASSERT_EQ(Call("path_open", {3, 0, 2000, 7, abi::kOflagCreat, rw, 0, 0, 2100}), 0u);
  uint32_t fd = U32(2100);
  Put(500, "written");
  Iovec(100, 500, 7);
  ASSERT_EQ(Call("fd_write", {fd, 100, 1, 120}), 0u);
  EXPECT_EQ(U32(120), 7u);
  ASSERT_EQ(Call("fd_pwrite", {fd, 100, 1, 10, 120}), 0u);  // a gap of zeros, then the bytes
  ASSERT_EQ(Call("fd_filestat_get", {fd, 200}), 0u);
  EXPECT_EQ(U64(232), 17u);
  ASSERT_EQ(Call("fd_filestat_set_size", {fd, 3}), 0u);
  Iovec(100, 600, 100);
  ASSERT_EQ(Call("fd_pread", {fd, 100, 1, 0, 120}), 0u);
  EXPECT_EQ(Get(600, U32(120)), "wri");

  // Truncating a mailbox file changes the run's copy, not the mailbox.
  Put(2000, "hello.txt");
  ASSERT_EQ(Call("path_open", {3, 0, 2000, 9, abi::kOflagTrunc, rw, 0, 0, 2100}), 0u);
  ASSERT_EQ(Call("fd_filestat_get", {U32(2100), 200}), 0u);
  EXPECT_EQ(U64(232), 0u);
  EXPECT_EQ(mailbox_.preopens()[0].root->entries.at("hello.txt")->contents.size(), 13u);

  // Append mode writes at the end whatever the position.
  Put(2000, "sub/b.txt");
  ASSERT_EQ(Call("path_open", {3, 0, 2000, 9, 0, rw, 0, abi::kFdflagAppend, 2100}), 0u);
  uint32_t app = U32(2100);
  Put(500, "!");
  Iovec(100, 500, 1);
  ASSERT_EQ(Call("fd_write", {app, 100, 1, 120}), 0u);
  Iovec(100, 600, 100);
  ASSERT_EQ(Call("fd_pread", {app, 100, 1, 0, 120}), 0u);
  EXPECT_EQ(Get(600, U32(120)), "bee!");

  // Rename, link, symlink, readlink, unlink, mkdir, rmdir.
  Put(2000, "sub/b.txt");
  Put(2100, "sub/z.txt");
  ASSERT_EQ(Call("path_rename", {3, 2000, 9, 3, 2100, 9}), 0u);
  ASSERT_EQ(Call("path_link", {3, 0, 2100, 9, 3, 2000, 9}), 0u);
  Put(2200, "link");
  ASSERT_EQ(Call("path_symlink", {2100, 9, 3, 2200, 4}), 0u);
  ASSERT_EQ(Call("path_readlink", {3, 2200, 4, 3000, 4, 120}), 0u);
  EXPECT_EQ(U32(120), 4u);  // cut to the buffer, as readlink(2)
  EXPECT_EQ(Get(3000, 4), "sub/");
  ASSERT_EQ(Call("path_filestat_get", {3, abi::kLookupSymlinkFollow, 2200, 4, 300}), 0u);
  EXPECT_EQ(U64(324), 2u);  // nlink: sub/b.txt and sub/z.txt
  EXPECT_EQ(Call("path_filestat_get", {3, 0, 2200, 4, 300}), 0u);
  EXPECT_EQ(At(316)[0], abi::kFiletypeSymbolicLink);
  ASSERT_EQ(Call("path_unlink_file", {3, 2200, 4}), 0u);
  Put(2000, "newdir");
  ASSERT_EQ(Call("path_create_directory", {3, 2000, 6}), 0u);
  EXPECT_EQ(Call("path_create_directory", {3, 2000, 6}), E(Errno::kExist));
  ASSERT_EQ(Call("path_remove_directory", {3, 2000, 6}), 0u);
  Put(2000, "sub");
  EXPECT_EQ(Call("path_remove_directory", {3, 2000, 3}), E(Errno::kNotEmpty));
  EXPECT_EQ(Call("path_unlink_file", {3, 2000, 3}), E(Errno::kIsDir));
  EXPECT_EQ(mailbox_.entry_count(), 5u);  // the mailbox saw none of it
}

// What the public WASI test suite's path_link, path_symlink_trailing_slashes
// and symlink_create ask of path_link and path_symlink (as wasmtime and
// WasmEdge answer), through the calls themselves.
TEST_F(WasiHostTest, LinksAnswerAsThePublicTestSuiteAsks) {
  uint64_t rw = abi::kRightFdRead | abi::kRightFdWrite | abi::kRightFdSeek | abi::kRightFdFilestatGet;
  auto put = [&](uint32_t at, std::string_view s) {
    Put(at, s);
    return uint64_t(s.size());
  };
  auto link = [&](uint32_t flags, std::string_view from, std::string_view to) {
    uint64_t a = put(2000, from), b = put(2100, to);
    return Call("path_link", {3, flags, 2000, a, 3, 2100, b});
  };
  auto symlink = [&](std::string_view target, std::string_view name) {
    uint64_t a = put(2000, target), b = put(2100, name);
    return Call("path_symlink", {2000, a, 3, 2100, b});
  };
  uint64_t n = put(2000, "file");
  ASSERT_EQ(Call("path_open", {3, 0, 2000, n, abi::kOflagCreat, rw, rw, 0, 2200}), 0u);
  uint32_t file_fd = U32(2200);
  // A link, in the same directory and in another: the same file, stat for stat.
  ASSERT_EQ(link(0, "file", "sub/link"), 0u);
  n = put(2000, "sub/link");
  ASSERT_EQ(Call("path_open", {3, 0, 2000, n, 0, rw, rw, 0, 2200}), 0u);
  ASSERT_EQ(Call("fd_filestat_get", {file_fd, 300}), 0u);
  ASSERT_EQ(Call("fd_filestat_get", {U32(2200), 400}), 0u);
  for (uint32_t field : {0, 8, 24, 32, 40, 48, 56})  // dev, ino, nlink, size, times
    EXPECT_EQ(U64(300 + field), U64(400 + field)) << "filestat field at " << field;
  EXPECT_EQ(At(316)[0], At(416)[0]);  // the file type
  EXPECT_EQ(U64(324), 2u);
  // Existing names, itself, a directory, a name with a trailing slash.
  EXPECT_EQ(link(0, "file", "hello.txt"), E(Errno::kExist));
  EXPECT_EQ(link(0, "file", "file"), E(Errno::kExist));
  EXPECT_EQ(link(0, "file", "sub"), E(Errno::kExist));
  EXPECT_EQ(link(0, "sub", "dirlink"), E(Errno::kPerm));
  EXPECT_EQ(link(0, "file", "link/"), E(Errno::kNoEnt));
  // Links to a dangling symbolic link and to a loop are made, not followed.
  ASSERT_EQ(symlink("target", "dangling"), 0u);
  EXPECT_EQ(link(0, "dangling", "link2"), 0u);
  EXPECT_EQ(link(abi::kLookupSymlinkFollow, "dangling", "link3"), E(Errno::kNoEnt));
  ASSERT_EQ(symlink("loop", "loop"), 0u);
  EXPECT_EQ(link(0, "loop", "link4"), 0u);
  EXPECT_EQ(link(0, "file", "dangling"), E(Errno::kExist));
  // path_symlink: a new name ending in '/' is ENOENT, an existing one EEXIST.
  EXPECT_EQ(symlink("source", "target/"), E(Errno::kNoEnt));
  EXPECT_EQ(symlink("source", "sub/"), E(Errno::kExist));
  EXPECT_EQ(symlink("source", "sub"), E(Errno::kExist));
  EXPECT_EQ(symlink("source", "file/"), E(Errno::kExist));
  EXPECT_EQ(symlink("source", "file"), E(Errno::kExist));
  // A link to an absolute path is refused, never made.
  EXPECT_EQ(symlink("/", "root"), E(Errno::kPerm));
  EXPECT_EQ(symlink("/etc/passwd", "abs"), E(Errno::kPerm));
  n = put(2000, "root");
  EXPECT_EQ(Call("path_filestat_get", {3, 0, 2000, n, 300}), E(Errno::kNoEnt));
}

// A file opened for writing only: reading it is EBADF as POSIX says, not
// WASI's ENOTCAPABLE.
TEST_F(WasiHostTest, ReadingAWriteOnlyFileIsEbadf) {
  Put(2000, "hello.txt");
  ASSERT_EQ(Call("path_open", {3, 0, 2000, 9, 0, abi::kRightFdWrite, 0, 0, 2100}), 0u);
  Iovec(100, 500, 4);
  EXPECT_EQ(Call("fd_read", {U32(2100), 100, 1, 120}), E(Errno::kBadf));
  EXPECT_EQ(Call("fd_pread", {U32(2100), 100, 1, 0, 120}), E(Errno::kBadf));
}

TEST_F(WasiHostTest, ReadOnlyPreopensRefuseChanges) {
  Mailbox ro;
  ASSERT_TRUE(ro.AddPreopen("/ro", /*read_only=*/true).ok());
  ASSERT_TRUE(ro.AddFile("/ro", "f.txt", Bytes("fixed")).ok());
  config_.mailbox = &ro;
  Rebuild();
  auto open = [&](std::string_view path, uint32_t oflags, uint64_t rights) {
    Put(2000, path);
    return Call("path_open", {3, 0, 2000, path.size(), oflags, rights, 0, 0, 2100});
  };
  EXPECT_EQ(open("new.txt", abi::kOflagCreat, abi::kRightFdWrite), E(Errno::kRofs));
  EXPECT_EQ(open("f.txt", 0, abi::kRightFdWrite), E(Errno::kRofs));
  EXPECT_EQ(open("f.txt", abi::kOflagTrunc, abi::kRightFdRead), E(Errno::kRofs));
  Put(2000, "f.txt");
  Put(2100, "g.txt");
  EXPECT_EQ(Call("path_unlink_file", {3, 2000, 5}), E(Errno::kRofs));
  EXPECT_EQ(Call("path_create_directory", {3, 2100, 5}), E(Errno::kRofs));
  EXPECT_EQ(Call("path_rename", {3, 2000, 5, 3, 2100, 5}), E(Errno::kRofs));
  EXPECT_EQ(Call("path_link", {3, 0, 2000, 5, 3, 2100, 5}), E(Errno::kRofs));
  EXPECT_EQ(Call("path_symlink", {2000, 5, 3, 2100, 5}), E(Errno::kRofs));
  EXPECT_EQ(Call("path_filestat_set_times", {3, 0, 2000, 5, 0, 0, 2}), E(Errno::kRofs));
  ASSERT_EQ(open("f.txt", 0, abi::kRightFdRead | abi::kRightFdFilestatSetTimes), 0u);
  EXPECT_EQ(Call("fd_filestat_set_times", {U32(2100), 0, 0, 2}), E(Errno::kRofs));
}

TEST_F(WasiHostTest, PathFilestatGet) {
  Put(2000, "sub");
  ASSERT_EQ(Call("path_filestat_get", {3, 0, 2000, 3, 300}), 0u);
  EXPECT_EQ(At(316)[0], abi::kFiletypeDirectory);
  Put(2000, "sub/c.txt");
  ASSERT_EQ(Call("path_filestat_get", {3, abi::kLookupSymlinkFollow, 2000, 9, 300}), 0u);
  EXPECT_EQ(At(316)[0], abi::kFiletypeRegularFile);
  EXPECT_EQ(U64(332), 3u);
  EXPECT_EQ(Call("path_filestat_get", {3, 0, 2000, 0, 300}), E(Errno::kNoEnt));
}

TEST_F(WasiHostTest, ReaddirListsSortedEntriesAndResumesFromCookie) {
  uint32_t fd = Open("sub", abi::kOflagDirectory);
  ASSERT_EQ(Call("fd_readdir", {fd, 1000, 1000, 0, 120}), 0u);
  uint32_t used = U32(120);
  std::vector<std::string> names;
  std::vector<uint64_t> cookies;
  for (uint32_t at = 1000; at + abi::kDirentSize <= 1000 + used;) {
    uint32_t len = U32(at + 16);
    cookies.push_back(U64(at));
    names.push_back(Get(at + abi::kDirentSize, len));
    at += abi::kDirentSize + len;
  }
  EXPECT_EQ(names, (std::vector<std::string>{".", "..", "b.txt", "c.txt"}));
  EXPECT_EQ(cookies, (std::vector<uint64_t>{1, 2, 3, 4}));
  EXPECT_EQ(used, 4 * 24u + 1 + 2 + 5 + 5);
  // A small buffer is filled completely (the last entry cut), then the
  // listing resumes from a cookie.
  ASSERT_EQ(Call("fd_readdir", {fd, 1000, 30, 0, 120}), 0u);
  EXPECT_EQ(U32(120), 30u);
  ASSERT_EQ(Call("fd_readdir", {fd, 1000, 1000, 3, 120}), 0u);
  EXPECT_EQ(U32(120), 24u + 5);
  EXPECT_EQ(Get(1024, 5), "c.txt");
  ASSERT_EQ(Call("fd_readdir", {fd, 1000, 1000, 99, 120}), 0u);
  EXPECT_EQ(U32(120), 0u);
  EXPECT_EQ(Call("fd_readdir", {1, 1000, 1000, 0, 120}), E(Errno::kNotDir));
  // This descriptor was opened without path rights: a path call on it is
  // WASI's ENOTCAPABLE, the one errno kept for a descriptor's rights.
  Put(2000, "../hello.txt");
  EXPECT_EQ(Call("path_open", {fd, 0, 2000, 12, 0, abi::kRightFdRead, 0, 0, 2100}),
            E(Errno::kNotCapable));
  // With them, a directory opened below the preopen still cannot climb out
  // of itself: EPERM, as wasmtime says.
  uint32_t sub = Open("sub", abi::kOflagDirectory, abi::kRightPathOpen | abi::kRightFdRead);
  Put(2000, "../hello.txt");
  EXPECT_EQ(Call("path_open", {sub, 0, 2000, 12, 0, abi::kRightFdRead, 0, 0, 2100}),
            E(Errno::kPerm));
  Put(2000, "b.txt");
  EXPECT_EQ(Call("path_open", {sub, 0, 2000, 5, 0, abi::kRightFdRead, 0, 0, 2100}), 0u);
}

TEST_F(WasiHostTest, ClocksArePollAdvancedVirtualTime) {
  ASSERT_EQ(Call("clock_time_get", {abi::kClockMonotonic, 1, 100}), 0u);
  EXPECT_EQ(U64(100), 0u);  // no fuel used yet
  ASSERT_EQ(Call("clock_time_get", {abi::kClockRealtime, 1, 100}), 0u);
  EXPECT_EQ(U64(100), 1'000'000u);
  ASSERT_EQ(Call("clock_res_get", {abi::kClockMonotonic, 100}), 0u);
  EXPECT_EQ(U64(100), 1u);
  EXPECT_EQ(Call("clock_time_get", {17, 1, 100}), E(Errno::kInval));

  // Two relative clock subscriptions: the earlier fires, time moves by it.
  memset(At(1000), 0, 96);
  Put32(1000, 11);  // userdata
  At(1008)[0] = abi::kEventClock;
  Put32(1016, abi::kClockMonotonic);
  Put32(1024, 500);  // timeout (low half)
  Put32(1048, 22);
  At(1056)[0] = abi::kEventClock;
  Put32(1064, abi::kClockMonotonic);
  Put32(1072, 900);
  ASSERT_EQ(Call("poll_oneoff", {1000, 2000, 2, 120}), 0u);
  EXPECT_EQ(U32(120), 1u);
  EXPECT_EQ(U64(2000), 11u);
  EXPECT_EQ(At(2010)[0], abi::kEventClock);
  ASSERT_EQ(Call("clock_time_get", {abi::kClockMonotonic, 1, 100}), 0u);
  EXPECT_EQ(U64(100), 500u);
  ASSERT_EQ(Call("clock_time_get", {abi::kClockRealtime, 1, 100}), 0u);
  EXPECT_EQ(U64(100), 1'000'500u);
  // An absolute deadline already passed fires without waiting.
  Put32(1024, 100);
  At(1040)[0] = abi::kSubclockAbstime;
  ASSERT_EQ(Call("poll_oneoff", {1000, 2000, 1, 120}), 0u);
  EXPECT_EQ(U32(120), 1u);
  ASSERT_EQ(Call("clock_time_get", {abi::kClockMonotonic, 1, 100}), 0u);
  EXPECT_EQ(U64(100), 500u);
  // A readable descriptor is ready at once: no time passes.
  memset(At(1000), 0, 96);
  At(1008)[0] = abi::kEventFdRead;
  Put32(1016, 0);
  At(1056)[0] = abi::kEventClock;
  Put32(1072, 1'000'000);
  ASSERT_EQ(Call("poll_oneoff", {1000, 2000, 2, 120}), 0u);
  EXPECT_EQ(U32(120), 1u);
  EXPECT_EQ(At(2010)[0], abi::kEventFdRead);
  EXPECT_EQ(U64(2016), stdin_.size());
  ASSERT_EQ(Call("clock_time_get", {abi::kClockMonotonic, 1, 100}), 0u);
  EXPECT_EQ(U64(100), 500u);
  EXPECT_EQ(Call("poll_oneoff", {1000, 2000, 0, 120}), E(Errno::kInval));
  At(1008)[0] = 9;  // unknown event type
  EXPECT_EQ(Call("poll_oneoff", {1000, 2000, 1, 120}), E(Errno::kInval));
}

TEST_F(WasiHostTest, RandomComesFromTheSeededStream) {
  ASSERT_EQ(Call("random_get", {100, 40}), 0u);
  DeterministicEnvironment same({.seed = 7});
  std::vector<uint8_t> expected(40);
  same.Random(expected);
  EXPECT_EQ(std::vector<uint8_t>(At(100), At(140)), expected);
}

TEST_F(WasiHostTest, SocketsProcessAndScheduling) {
  EXPECT_EQ(Call("sock_accept", {3, 0, 100}), E(Errno::kNotSock));
  EXPECT_EQ(Call("sock_recv", {1, 100, 1, 0, 120, 124}), E(Errno::kNotSock));
  EXPECT_EQ(Call("sock_send", {1, 100, 1, 0, 120}), E(Errno::kNotSock));
  EXPECT_EQ(Call("sock_shutdown", {0, 3}), E(Errno::kNotSock));
  EXPECT_EQ(Call("sock_shutdown", {50, 3}), E(Errno::kBadf));
  EXPECT_EQ(Call("proc_raise", {6}), E(Errno::kNoSys));
  EXPECT_EQ(Call("sched_yield", {}), 0u);
  uint32_t unused = 0;
  HostResult r = Invoke("proc_exit", {uint64_t(0xFFFFFFFFu)}, &unused, mem_);
  EXPECT_EQ(r.kind, HostResult::Kind::kExit);
  EXPECT_EQ(r.exit_code, -1);
}

TEST_F(WasiHostTest, DescriptorBookkeeping) {
  ASSERT_EQ(Call("fd_fdstat_get", {1, 100}), 0u);
  EXPECT_EQ(At(100)[0], abi::kFiletypeUnknown);  // a captured stream, not a terminal
  EXPECT_NE(U64(108) & abi::kRightFdWrite, 0u);
  ASSERT_EQ(Call("fd_fdstat_set_flags", {1, abi::kFdflagAppend}), 0u);
  ASSERT_EQ(Call("fd_fdstat_get", {1, 100}), 0u);
  EXPECT_EQ(U32(102) & 0xFFFF, abi::kFdflagAppend);
  EXPECT_EQ(Call("fd_fdstat_set_flags", {1, 0x100}), E(Errno::kInval));
  // Rights only shrink.
  ASSERT_EQ(Call("fd_fdstat_set_rights", {1, 0, 0}), 0u);
  EXPECT_EQ(Call("fd_fdstat_set_rights", {1, abi::kRightFdWrite, 0}), E(Errno::kNotCapable));
  EXPECT_EQ(Call("fd_write", {1, 100, 0, 120}), E(Errno::kNotCapable));

  uint32_t a = Open("hello.txt");
  uint32_t b = Open("sub/b.txt");
  ASSERT_EQ(Call("fd_renumber", {a, b}), 0u);
  Iovec(100, 500, 3);
  ASSERT_EQ(Call("fd_read", {b, 100, 1, 120}), 0u);
  EXPECT_EQ(Get(500, 3), "hel");
  EXPECT_EQ(Call("fd_read", {a, 100, 1, 120}), E(Errno::kBadf));
  EXPECT_EQ(Call("fd_renumber", {b, 200}), E(Errno::kBadf));
  EXPECT_EQ(Open("sub/c.txt"), a);  // the lowest free number is reused
  EXPECT_EQ(Call("fd_advise", {a, 0, 0, 9}), E(Errno::kInval));
  EXPECT_EQ(Call("fd_advise", {a, 0, 0, 1}), 0u);
  EXPECT_EQ(Call("fd_advise", {0, 0, 0, 1}), E(Errno::kSpipe));
}

TEST_F(WasiHostTest, TooManyOpenFilesIsEmfile) {
  Put(2000, "hello.txt");
  uint32_t e = 0;
  int opened = 0;
  while ((e = Call("path_open", {3, 0, 2000, 9, 0, abi::kRightFdRead, 0, 0, 2100})) == 0) ++opened;
  EXPECT_EQ(e, E(Errno::kMfile));
  EXPECT_EQ(opened, int(kMaxOpenFds) - 4);
}

// Every call with arbitrary arguments: never a crash, always an errno from
// the table (and proc_exit always exits).
TEST_F(WasiHostTest, ArbitraryArgumentsNeverCrash) {
  std::mt19937_64 rng(12345);
  auto arg = [&]() -> uint64_t {
    switch (rng() % 6) {
      case 0: return 0;
      case 1: return rng() % 8;
      case 2: return 65536 - rng() % 64;
      case 3: return rng() % 65536;
      case 4: return uint32_t(rng());
      default: return rng();
    }
  };
  for (std::string_view name : WasiFunctionNames()) {
    const wasm::FuncType* t = host_->Find(name)->type;
    for (int round = 0; round < 3000; ++round) {
      if (round % 100 == 0) {
        for (auto& byte : mem_->data) byte = uint8_t(rng());
      }
      std::vector<uint64_t> args(t->params.size());
      for (auto& a : args) a = arg();
      for (size_t i = 0; i < args.size(); ++i) {
        if (t->params[i] == wasm::ValType::I32) args[i] = uint32_t(args[i]);
      }
      uint32_t e = 0;
      HostResult r = Invoke(name, args, &e, mem_);
      if (name == "proc_exit") {
        EXPECT_EQ(r.kind, HostResult::Kind::kExit);
      } else {
        ASSERT_EQ(r.kind, HostResult::Kind::kOk);
        ASSERT_LE(e, uint32_t(Errno::kNotCapable)) << name;
      }
    }
  }
}

}  // namespace
}  // namespace ampoule::wasi
