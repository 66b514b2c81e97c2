// The demos' shared steps (see story.h).
#include "ampoule/demo/story.h"

#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ampoule/demo/embedded_files.h"
#include "ampoule/kernel/default_path.h"
#include "ampoule/verify/file_digest.h"
#include "core/errno_text.h"

namespace ampoule::demo {
namespace {

namespace fs = std::filesystem;

// An argument as a shell would need it typed.
std::string ShellWord(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:+@,") == std::string::npos) {
    return arg;
  }
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

core::Result<std::string> MakeWorkDir(std::string_view name, const std::string& wanted) {
  std::error_code ec;
  if (!wanted.empty()) {
    if (fs::exists(wanted, ec)) {
      if (!fs::is_directory(wanted, ec) || !fs::is_empty(wanted, ec)) {
        return core::Error{"--dir " + wanted + " must be a new or empty folder"};
      }
    } else if (!fs::create_directories(wanted, ec)) {
      return core::Error{"cannot create " + wanted + ": " + ec.message()};
    }
    fs::path abs = fs::canonical(wanted, ec);
    if (ec) return core::Error{"cannot resolve " + wanted + ": " + ec.message()};
    return abs.string();
  }
  const char* tmp = getenv("TMPDIR");
  std::string base = tmp != nullptr && tmp[0] != '\0' ? tmp : "/tmp";
  std::string templ = base + "/ampoule-demo-" + std::string(name) + ".XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) {
    return core::Error{"cannot create a folder under " + base + ": " + core::ErrnoText() +
                 " (set TMPDIR or give --dir DIR)"};
  }
  return templ;
}

}  // namespace

std::string LastLine(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  size_t nl = text.rfind('\n');
  return std::string(nl == std::string_view::npos ? text : text.substr(nl + 1));
}

core::Result<Story> Story::Begin(std::string_view name, const DemoOptions& options, FILE* out) {
  std::string kernel = options.kernel.empty() ? kernel::DefaultKernelPath() : options.kernel;
  std::error_code ec;
  if (kernel.empty() || !fs::is_regular_file(kernel, ec)) {
    return core::Error{"no kernel at '" + kernel +
                 "': build one with scripts/build-kernel.sh, or name one with --kernel K or "
                 "$AMPOULE_KERNEL"};
  }
  kernel = fs::absolute(kernel, ec).lexically_normal().string();
  core::Result<std::string> digest = verify::Sha256File(kernel);
  if (!digest.ok()) return digest.error();

  core::Result<std::string> dir = MakeWorkDir(name, options.dir);
  if (!dir.ok()) return dir.error();
  Story story(out, *dir);
  story.kernel_sha256_ = *digest;

  std::string prefix = std::string(name) + "/";
  std::string written;
  for (const EmbeddedFile& f : EmbeddedFiles()) {
    if (!f.path.starts_with(prefix)) continue;
    std::string file = std::string(f.path.substr(prefix.size()));
    CORE_RETURN_IF_ERROR(story.WriteFile(file, f.bytes));
    written += (written.empty() ? "" : ", ") + file;
  }
  fs::create_symlink(kernel, fs::path(story.dir_) / kKernelName, ec);
  if (ec) return core::Error{"cannot link the kernel into " + story.dir_ + ": " + ec.message()};

  fprintf(out, "ampoule demo %.*s: working folder %s\n", int(name.size()), name.data(),
          story.dir_.c_str());
  fprintf(out, "  example files (examples/%.*s): %s\n", int(name.size()), name.data(),
          written.c_str());
  fprintf(out, "  kernel: %s -> %s\n  kernel sha256: %s\n", kKernelName, kernel.c_str(),
          digest->c_str());
  return story;
}

void Story::Heading(std::string_view text) {
  fprintf(out_, "\n== %.*s\n", int(text.size()), text.data());
  fflush(out_);
}

void Story::Say(std::string_view text) {
  fprintf(out_, "%.*s\n", int(text.size()), text.data());
}

void Story::ShowIndented(std::string_view text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? text.npos : nl - start);
    fprintf(out_, "    %.*s\n", int(line.size()), line.data());
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
}

core::Status Story::WriteFile(const std::string& name, std::string_view bytes) {
  fs::path path = fs::path(dir_) / name;
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), std::streamsize(bytes.size()));
  f.close();
  if (!f) return core::Error{"cannot write " + path.string()};
  return core::Status::Ok();
}

core::Result<std::string> Story::ReadFile(const std::string& name) const {
  fs::path path = fs::path(dir_) / name;
  std::ifstream f(path, std::ios::binary);
  if (!f) return core::Error{"cannot read " + path.string()};
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void Story::ShowFile(const std::string& name) {
  core::Result<std::string> text = ReadFile(name);
  fprintf(out_, "%s:\n", name.c_str());
  ShowIndented(text.ok() ? *text : "(" + text.message() + ")");
}

core::Result<Captured> Story::Run(const std::vector<std::string>& args, bool quiet) {
  std::string line = "$ ampoule";
  for (const std::string& a : args) line += " " + ShellWord(a);
  fprintf(out_, "%s\n", line.c_str());
  fflush(out_);
  core::Result<Captured> run = RunSelf(args, dir_);
  // stderr first: the commands explain there and end with their result
  // line on stdout, so the result is what reads last.
  if (run.ok() && !quiet) ShowIndented(run->err + run->out);
  return run;
}

bool Story::Expect(const std::string& label, const core::Result<Captured>& run, int exit_code,
                   std::string_view last_line) {
  std::string expected = std::string(last_line.empty() ? "" : std::string(last_line) + ", ") +
                         "exit " + std::to_string(exit_code);
  if (!run.ok()) return Check(label, false, expected, "could not run: " + run.message());
  std::string got_line = LastLine(run->out);
  bool line_ok = last_line.empty() || got_line == last_line ||
                 (got_line.starts_with(last_line) && got_line.size() > last_line.size() &&
                  got_line[last_line.size()] == ':');
  std::string got = (last_line.empty() ? "" : (got_line.empty() ? "(no output)" : got_line) + ", ") +
                    "exit " + std::to_string(run->exit_code);
  return Check(label, line_ok && run->exit_code == exit_code, expected, got);
}

bool Story::Check(const std::string& label, bool ok, const std::string& expected,
                  const std::string& got) {
  if (ok) {
    fprintf(out_, "  -> %s: as expected\n", got.c_str());
  } else {
    fprintf(out_, "  -> NOT AS EXPECTED: got %s, expected %s\n", got.c_str(), expected.c_str());
  }
  fflush(out_);
  outcomes_.push_back({label, expected, got, ok});
  return ok;
}

int Story::Finish(std::string_view name) {
  Heading("Summary");
  size_t failed = 0;
  size_t width = 0;
  for (const Outcome& o : outcomes_) width = std::max(width, o.label.size());
  for (const Outcome& o : outcomes_) {
    fprintf(out_, "  %-4s %-*s  %s\n", o.ok ? "ok" : "FAIL", int(width), o.label.c_str(),
            o.ok ? o.got.c_str() : ("got " + o.got + ", expected " + o.expected).c_str());
    if (!o.ok) ++failed;
  }
  fprintf(out_, "\n");
  if (failed == 0) {
    fprintf(out_, "%.*s demo: all %zu checks as expected (files kept in %s)\n", int(name.size()),
            name.data(), outcomes_.size(), dir_.c_str());
    return 0;
  }
  fprintf(out_, "%.*s demo: %zu of %zu checks NOT as expected (see above; files kept in %s)\n",
          int(name.size()), name.data(), failed, outcomes_.size(), dir_.c_str());
  return 1;
}

}  // namespace ampoule::demo
