#include "ampoule/wasi/vfs.h"

#include <gtest/gtest.h>

namespace ampoule::wasi {
namespace {

using Mode = Vfs::Mode;

std::vector<uint8_t> Bytes(std::string_view s) { return std::vector<uint8_t>(s.begin(), s.end()); }
std::string Text(std::span<const uint8_t> b) { return std::string(b.begin(), b.end()); }

class VfsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(box.AddPreopen("/input").ok());
    ASSERT_TRUE(box.AddFile("/input", "a.txt", Bytes("alpha")).ok());
    ASSERT_TRUE(box.AddFile("/input", "sub/b.txt", Bytes("beta")).ok());
    ASSERT_TRUE(box.AddDirectory("/input", "empty").ok());
    ASSERT_TRUE(box.AddPreopen("/ro", /*read_only=*/true).ok());
    ASSERT_TRUE(box.AddFile("/ro", "fixed.txt", Bytes("fixed")).ok());
    Make();
  }
  void Make(FsLimits limits = {}) {
    vfs = std::make_unique<Vfs>(&box, limits, 1000);
    root = vfs->roots()[0].node;
    ro = vfs->roots()[1].node;
  }
  // Resolves `path` from root, the error or the node.
  NodeRef Get(std::string_view path, Mode mode = Mode::kFollow) {
    Resolution r;
    last = vfs->Resolve(root, path, mode, &r);
    return r.node;
  }
  Errno Err(std::string_view path, Mode mode = Mode::kFollow) {
    Get(path, mode);
    return last;
  }
  Errno Write(const NodeRef& file, uint64_t at, std::string_view text) {
    std::span<const uint8_t> part(reinterpret_cast<const uint8_t*>(text.data()), text.size());
    uint64_t n = 0;
    return vfs->Write(file, at, std::span(&part, 1), &n);
  }
  std::vector<std::string> Listing(const NodeRef& dir) {
    std::vector<std::string> names;
    for (const auto& [cookie, name] : dir->names_by_cookie) names.push_back(name);
    return names;
  }

  Mailbox box;
  std::unique_ptr<Vfs> vfs;
  NodeRef root, ro;
  Errno last = Errno::kSuccess;
};

TEST_F(VfsTest, ResolvesRelativePaths) {
  NodeRef b = Get("sub/b.txt");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(Text(b->bytes()), "beta");
  EXPECT_EQ(Get("./sub//./b.txt"), b);
  EXPECT_EQ(Get("sub/../sub/b.txt"), b);
  EXPECT_EQ(Get("."), root);
  EXPECT_TRUE(Get("sub/")->is_dir());
}

TEST_F(VfsTest, PathErrors) {
  EXPECT_EQ(Err(""), Errno::kNoEnt);
  Resolution r;
  EXPECT_EQ(vfs->Resolve(root, "nope", Mode::kFollow, &r), Errno::kNoEnt);
  EXPECT_TRUE(r.leaf_missing);
  Resolution deep;
  EXPECT_EQ(vfs->Resolve(root, "nope/x", Mode::kFollow, &deep), Errno::kNoEnt);
  EXPECT_FALSE(deep.leaf_missing);
  EXPECT_EQ(Err("a.txt/x"), Errno::kNotDir);
  EXPECT_EQ(Err("a.txt/"), Errno::kNotDir);
  EXPECT_EQ(Err("a.txt/."), Errno::kNotDir);
  // Escapes are EPERM, never WASI's ENOTCAPABLE (a POSIX program knows the first).
  EXPECT_EQ(Err(".."), Errno::kPerm);
  EXPECT_EQ(Err("sub/../.."), Errno::kPerm);
  EXPECT_EQ(Err("/input/a.txt"), Errno::kPerm);
  EXPECT_EQ(Err(std::string(kMaxPathBytes + 1, 'a')), Errno::kNameTooLong);
  EXPECT_EQ(Err(std::string(kMaxNameBytes + 1, 'a')), Errno::kNameTooLong);
  EXPECT_EQ(Err(std::string_view("a\0b", 3)), Errno::kInval);
}

TEST_F(VfsTest, DotDotCannotEscapeASubdirectoryBase) {
  NodeRef sub = Get("sub");
  Resolution r;
  // A descriptor for sub/ is a capability for sub/ only.
  EXPECT_EQ(vfs->Resolve(sub, "../a.txt", Mode::kFollow, &r), Errno::kPerm);
  EXPECT_EQ(vfs->Resolve(sub, "b.txt", Mode::kFollow, &r), Errno::kSuccess);
}

TEST_F(VfsTest, WritesAreCopyOnWriteAndNeverReachTheMailbox) {
  NodeRef a = Get("a.txt");
  ASSERT_EQ(Write(a, 0, "ALP"), Errno::kSuccess);
  EXPECT_EQ(Text(a->bytes()), "ALPha");
  ASSERT_EQ(Write(a, 7, "!"), Errno::kSuccess);  // past the end: the gap is zeros
  EXPECT_EQ(Text(a->bytes()), std::string("ALPha\0\0!", 8));
  EXPECT_EQ(Text(box.preopens()[0].root->entries.at("a.txt")->contents), "alpha");
  EXPECT_EQ(vfs->usage().bytes, 8u + 4u + 5u);  // a.txt, sub/b.txt, /ro/fixed.txt
  ASSERT_EQ(vfs->Resize(a, 2), Errno::kSuccess);
  EXPECT_EQ(Text(a->bytes()), "AL");
  EXPECT_EQ(a->mtim, 1000u);
  vfs->set_now(5000);
  ASSERT_EQ(Write(a, 2, "x"), Errno::kSuccess);
  EXPECT_EQ(a->mtim, 5000u);
  EXPECT_EQ(a->atim, 1000u);
}

TEST_F(VfsTest, CreatesRemovesAndRenames) {
  NodeRef file;
  ASSERT_EQ(vfs->CreateFile(root, "new.txt", &file), Errno::kSuccess);
  EXPECT_EQ(vfs->CreateFile(root, "new.txt", &file), Errno::kExist);
  EXPECT_EQ(file->inode, box.entry_count() + 1);  // counts on from the mailbox
  ASSERT_EQ(vfs->CreateDirectory(root, "d"), Errno::kSuccess);
  EXPECT_EQ(vfs->CreateDirectory(root, "d"), Errno::kExist);
  EXPECT_EQ(vfs->CreateDirectory(root, "."), Errno::kExist);
  EXPECT_EQ(vfs->Rename(root, "new.txt", Get("d"), "moved.txt", false), Errno::kSuccess);
  EXPECT_EQ(Get("d/moved.txt"), file);
  EXPECT_EQ(Err("new.txt"), Errno::kNoEnt);
  // Over an existing file: the target is replaced.
  EXPECT_EQ(vfs->Rename(Get("d"), "moved.txt", root, "a.txt", false), Errno::kSuccess);
  EXPECT_EQ(Get("a.txt"), file);
  // A file over a directory, a directory over a file, a non-empty target.
  EXPECT_EQ(vfs->Rename(root, "a.txt", root, "d", false), Errno::kIsDir);
  EXPECT_EQ(vfs->Rename(root, "d", root, "a.txt", false), Errno::kNotDir);
  EXPECT_EQ(vfs->Rename(root, "empty", root, "sub", false), Errno::kNotEmpty);
  EXPECT_EQ(vfs->Rename(root, "d", root, "empty", false), Errno::kSuccess);  // over an empty one
  // Not into itself.
  EXPECT_EQ(vfs->Rename(root, "sub", Get("sub"), "inner", false), Errno::kInval);
  EXPECT_EQ(vfs->Rename(root, "a.txt", root, "b", /*trailing_slash=*/true), Errno::kNotDir);
  EXPECT_EQ(vfs->RemoveDirectory(root, "sub"), Errno::kNotEmpty);
  EXPECT_EQ(vfs->RemoveDirectory(root, "a.txt"), Errno::kNotDir);
  EXPECT_EQ(vfs->Unlink(root, "sub", false), Errno::kIsDir);
  EXPECT_EQ(vfs->Unlink(root, "a.txt", true), Errno::kNotDir);
  EXPECT_EQ(vfs->Unlink(root, "a.txt", false), Errno::kSuccess);
  EXPECT_EQ(vfs->RemoveDirectory(root, "empty"), Errno::kSuccess);
  EXPECT_EQ(Listing(root), (std::vector<std::string>{"sub"}));
}

TEST_F(VfsTest, HardLinksShareOneFile) {
  NodeRef a = Get("a.txt");
  ASSERT_EQ(vfs->Link(a, root, "twin"), Errno::kSuccess);
  EXPECT_EQ(a->nlink, 2u);
  EXPECT_EQ(Write(Get("twin"), 0, "A"), Errno::kSuccess);
  EXPECT_EQ(Text(Get("a.txt")->bytes()), "Alpha");
  EXPECT_EQ(vfs->Link(Get("sub"), root, "dirlink"), Errno::kPerm);
  EXPECT_EQ(vfs->Rename(root, "a.txt", root, "twin", false), Errno::kSuccess);  // same file
  EXPECT_NE(Get("a.txt"), nullptr);
  ASSERT_EQ(vfs->Unlink(root, "a.txt", false), Errno::kSuccess);
  EXPECT_EQ(a->nlink, 1u);
}

TEST_F(VfsTest, SymbolicLinksStayInsideTheirBaseAndLoopsEnd) {
  ASSERT_EQ(vfs->CreateSymlink(root, "to_b", "sub/b.txt"), Errno::kSuccess);
  ASSERT_EQ(vfs->CreateSymlink(Get("sub"), "up", "../a.txt"), Errno::kSuccess);
  ASSERT_EQ(vfs->CreateSymlink(root, "to_sub", "sub"), Errno::kSuccess);
  EXPECT_EQ(Text(Get("to_b")->bytes()), "beta");
  EXPECT_EQ(Text(Get("sub/up")->bytes()), "alpha");
  EXPECT_EQ(Text(Get("to_sub/up")->bytes()), "alpha");
  EXPECT_TRUE(Get("to_b", Mode::kNoFollow)->is_symlink());
  EXPECT_EQ(Get("to_sub/..", Mode::kFollow), root);
  // Escapes: ".." above the base the walk began at (absolute targets are
  // refused when the link is made: SymbolicLinksToAbsolutePathsAreRefused).
  ASSERT_EQ(vfs->CreateSymlink(root, "out", "../../x"), Errno::kSuccess);
  EXPECT_EQ(Err("out"), Errno::kPerm);
  Resolution r;
  EXPECT_EQ(vfs->Resolve(Get("sub"), "up", Mode::kFollow, &r), Errno::kPerm);
  // Loops, direct and through two links.
  ASSERT_EQ(vfs->CreateSymlink(root, "self", "self"), Errno::kSuccess);
  ASSERT_EQ(vfs->CreateSymlink(root, "ping", "pong/x"), Errno::kSuccess);
  ASSERT_EQ(vfs->CreateSymlink(root, "pong", "ping"), Errno::kSuccess);
  EXPECT_EQ(Err("self"), Errno::kLoop);
  EXPECT_EQ(Err("ping"), Errno::kLoop);
  EXPECT_EQ(Err("self", Mode::kNoFollow), Errno::kSuccess);
  EXPECT_EQ(Err("self/"), Errno::kLoop);  // a trailing slash follows
}

// As wasmtime and the public WASI test suite (symlink_create) want: a link
// to an absolute path could only lead out of the tree, so it is never made;
// an empty target names nothing. Either way nothing is created or counted.
TEST_F(VfsTest, SymbolicLinksToAbsolutePathsAreRefused) {
  uint64_t nodes = vfs->usage().nodes, bytes = vfs->usage().bytes;
  EXPECT_EQ(vfs->CreateSymlink(root, "abs", "/etc/passwd"), Errno::kPerm);
  EXPECT_EQ(vfs->CreateSymlink(root, "slash", "/"), Errno::kPerm);
  EXPECT_EQ(vfs->CreateSymlink(root, "inside", "/input/a.txt"), Errno::kPerm);
  EXPECT_EQ(vfs->CreateSymlink(root, "empty_target", ""), Errno::kNoEnt);
  EXPECT_EQ(Err("abs", Mode::kNoFollow), Errno::kNoEnt);
  EXPECT_EQ(Err("slash", Mode::kNoFollow), Errno::kNoEnt);
  EXPECT_EQ(Err("inside", Mode::kNoFollow), Errno::kNoEnt);
  EXPECT_EQ(Err("empty_target", Mode::kNoFollow), Errno::kNoEnt);
  EXPECT_EQ(vfs->usage().nodes, nodes);
  EXPECT_EQ(vfs->usage().bytes, bytes);
  EXPECT_EQ(vfs->change_count(), 0u);
  // The existing name still wins over the target's form (EEXIST first).
  EXPECT_EQ(vfs->CreateSymlink(root, "a.txt", "/x"), Errno::kExist);
  // A relative target that stays inside is made and followed.
  ASSERT_EQ(vfs->CreateSymlink(Get("sub"), "rel", "../a.txt"), Errno::kSuccess);
  EXPECT_EQ(Text(Get("sub/rel")->bytes()), "alpha");
}

// A hard link is the same node under a second name: one inode, one set of
// bytes and times, counted once against the caps; each name can go and the
// file stays while one is left (or a descriptor holds it).
TEST_F(VfsTest, HardLinksShareTheInodeBytesTimesAndCaps) {
  NodeRef a = Get("a.txt");
  uint64_t nodes = vfs->usage().nodes, bytes = vfs->usage().bytes;
  vfs->set_now(7000);
  ASSERT_EQ(vfs->Link(a, Get("sub"), "a_link"), Errno::kSuccess);
  NodeRef twin = Get("sub/a_link");
  ASSERT_EQ(twin, a);
  EXPECT_EQ(twin->inode, a->inode);
  EXPECT_EQ(a->nlink, 2u);
  EXPECT_EQ(a->ctim, 7000u);
  EXPECT_EQ(vfs->usage().nodes, nodes);  // a name, not a node
  EXPECT_EQ(vfs->usage().bytes, bytes);
  vfs->set_now(8000);
  ASSERT_EQ(Write(twin, 5, "!"), Errno::kSuccess);
  EXPECT_EQ(Text(Get("a.txt")->bytes()), "alpha!");
  EXPECT_EQ(Get("a.txt")->mtim, 8000u);
  EXPECT_EQ(vfs->usage().bytes, bytes + 1);
  // Names that exist, "." and "..", and targets of another kind.
  EXPECT_EQ(vfs->Link(a, root, "a.txt"), Errno::kExist);  // onto itself
  EXPECT_EQ(vfs->Link(a, root, "empty"), Errno::kExist);  // onto a directory
  EXPECT_EQ(vfs->Link(a, root, "."), Errno::kExist);
  EXPECT_EQ(vfs->Link(Get("empty"), root, "dir_link"), Errno::kPerm);
  // A link to a symbolic link (not followed) is a second name of the link.
  ASSERT_EQ(vfs->CreateSymlink(root, "dangling", "nowhere"), Errno::kSuccess);
  NodeRef link = Get("dangling", Mode::kNoFollow);
  ASSERT_EQ(vfs->Link(link, root, "dangling2"), Errno::kSuccess);
  EXPECT_EQ(Get("dangling2", Mode::kNoFollow), link);
  EXPECT_EQ(link->nlink, 2u);
  // Removing names: the file lives on through the other one.
  ASSERT_EQ(vfs->Unlink(root, "a.txt", false), Errno::kSuccess);
  EXPECT_EQ(a->nlink, 1u);
  EXPECT_EQ(Text(Get("sub/a_link")->bytes()), "alpha!");
  ASSERT_EQ(vfs->Unlink(Get("sub"), "a_link", false), Errno::kSuccess);
  EXPECT_EQ(a->nlink, 0u);
  twin.reset();
  a.reset();
  EXPECT_EQ(vfs->usage().nodes, nodes - 1 + 1);  // a.txt gone; the symbolic link, two names
  EXPECT_EQ(vfs->usage().bytes, bytes - 5 + 7);  // a.txt gone, "nowhere" counted
}

TEST_F(VfsTest, ListingCookiesSurviveChanges) {
  std::vector<uint64_t> cookies;
  for (const auto& [cookie, name] : root->names_by_cookie) cookies.push_back(cookie);
  NodeRef f;
  ASSERT_EQ(vfs->CreateFile(root, "0first", &f), Errno::kSuccess);
  ASSERT_EQ(vfs->Unlink(root, "a.txt", false), Errno::kSuccess);
  // The entries that stayed keep their cookies; new ones come last.
  EXPECT_EQ(root->entries.at("empty").cookie, cookies[1]);
  EXPECT_EQ(root->entries.at("sub").cookie, cookies[2]);
  EXPECT_EQ(Listing(root), (std::vector<std::string>{"empty", "sub", "0first"}));
}

TEST_F(VfsTest, CapsAreErrnosForTheGuest) {
  FsLimits limits;
  limits.max_bytes = 20;  // 14 bytes are inputs
  limits.max_nodes = 8;   // 7 are inputs (2 roots, a.txt, sub, b.txt, empty, fixed.txt)
  limits.max_depth = 2;
  ASSERT_TRUE(ValidateFsLimits(&box, limits).ok());
  Make(limits);
  NodeRef a = Get("a.txt");
  EXPECT_EQ(Write(a, 0, "123456"), Errno::kSuccess);  // 5 -> 6 bytes: 15
  EXPECT_EQ(Write(a, 6, "123456"), Errno::kNoSpc);
  EXPECT_EQ(Text(a->bytes()), "123456");  // nothing of a refused write lands
  NodeRef f;
  ASSERT_EQ(vfs->CreateDirectory(Get("sub"), "deep"), Errno::kSuccess);  // depth 2, node 8
  EXPECT_EQ(vfs->CreateFile(root, "more", &f), Errno::kDquot);
  ASSERT_EQ(vfs->Unlink(root, "a.txt", false), Errno::kSuccess);
  EXPECT_EQ(vfs->CreateFile(Get("sub/deep"), "x", &f), Errno::kNameTooLong);  // depth 3
  EXPECT_EQ(vfs->Rename(root, "sub", Get("empty"), "s", false), Errno::kNameTooLong);
  // An unlinked file still counts while it is referenced, then not.
  EXPECT_EQ(vfs->usage().nodes, 8u);
  EXPECT_EQ(vfs->usage().bytes, 15u);
  a.reset();
  EXPECT_EQ(vfs->usage().nodes, 7u);
  EXPECT_EQ(vfs->usage().bytes, 9u);
  limits.max_bytes = 13;
  core::Status s = ValidateFsLimits(&box, limits);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("14 bytes"), std::string::npos) << s.message();
  EXPECT_FALSE(ValidateFsLimits(&box, FsLimits{0, 1, 1}).ok());
}

TEST_F(VfsTest, ReadOnlyTreesRefuseEveryChange) {
  NodeRef fixed;
  Resolution r;
  ASSERT_EQ(vfs->Resolve(ro, "fixed.txt", Mode::kFollow, &r), Errno::kSuccess);
  fixed = r.node;
  NodeRef f;
  EXPECT_EQ(Write(fixed, 0, "x"), Errno::kRofs);
  EXPECT_EQ(vfs->Resize(fixed, 0), Errno::kRofs);
  EXPECT_EQ(vfs->CreateFile(ro, "n", &f), Errno::kRofs);
  EXPECT_EQ(vfs->CreateDirectory(ro, "n"), Errno::kRofs);
  EXPECT_EQ(vfs->CreateSymlink(ro, "n", "x"), Errno::kRofs);
  EXPECT_EQ(vfs->Unlink(ro, "fixed.txt", false), Errno::kRofs);
  EXPECT_EQ(vfs->Rename(ro, "fixed.txt", root, "stolen", false), Errno::kRofs);
  EXPECT_EQ(vfs->Link(fixed, root, "twin"), Errno::kRofs);
  EXPECT_EQ(vfs->SetTimes(fixed, 1, 1, 5), Errno::kRofs);
  EXPECT_EQ(vfs->change_count(), 0u);
}

}  // namespace
}  // namespace ampoule::wasi
