#include "ampoule/spectest/suite.h"

#include <cstdlib>
#include <optional>

#include "ampoule/spectest/command_reader.h"
#include "ampoule/spectest/isolate.h"
#include "ampoule/spectest/runner.h"
#include "ampoule/spectest/wast_convert.h"
#include "core/file_read.h"

namespace ampoule::spectest {
namespace fs = std::filesystem;
namespace {

bool IsWast(const fs::path& p) { return p.extension() == ".wast"; }
bool IsJson(const fs::path& p) { return p.extension() == ".json"; }

// A scratch folder for conversions, removed with everything in it.
class ScratchDir {
 public:
  static core::Result<ScratchDir> Create() {
    const char* tmp = getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/ampoule-spectest-XXXXXX";
    if (!mkdtemp(pattern.data())) return core::Error{"cannot create a scratch folder under " + pattern};
    return ScratchDir(pattern);
  }
  ScratchDir(ScratchDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  explicit ScratchDir(fs::path p) : path_(std::move(p)) {}
  fs::path path_;
};

// A report for a script that could not run at all: one failed command.
FileReport Broken(const std::string& name, const std::string& why) {
  FileReport r;
  r.name = name;
  Verdict v;
  v.kind = Verdict::Kind::kFail;
  v.message = why;
  r.Add(v);
  r.error = why.substr(0, why.find('\n'));
  return r;
}

struct Converter {
  fs::path tool;
  std::string cache_dir;
  const ScratchDir* scratch = nullptr;

  core::Result<fs::path> Convert(const fs::path& wast) const {
    if (!cache_dir.empty()) return ConvertWastCached(tool, wast, cache_dir);
    return ConvertWast(tool, wast, scratch->path() / wast.stem());
  }
};

FileReport RunScript(const fs::path& script, const Converter& converter, const SuiteOptions& options) {
  std::string name = script.filename().string();
  fs::path json = script;
  if (IsWast(script)) {
    core::Result<fs::path> converted = converter.Convert(script);
    if (!converted) return Broken(name, converted.message());
    json = *converted;
  }
  core::Result<std::string> text = core::ReadFileCapped(json.string());
  if (!text) return Broken(name, text.message());
  core::Result<CommandFile> file = ReadCommandFile(*text);
  if (!file) return Broken(name, json.filename().string() + ": " + file.message());

  // A .json given directly names its script in source_filename.
  std::string script_name = name;
  if (IsJson(script) && !file->source_filename.empty()) {
    script_name = fs::path(file->source_filename).filename().string();
  }
  fs::path dir = json.parent_path();
  ScriptWork work = [&](const VerdictSink& sink) { RunCommandFile(*file, script_name, dir, sink); };
  // SIMD scripts never reach the engine, so they need no isolation.
  bool isolate = options.isolate && !IsSimdScript(script_name);
  FileReport report = isolate ? RunIsolated(name, file->commands, work, options.timeout)
                              : RunInProcess(name, work);
  if (IsWast(script) && options.cache_dir.empty()) {
    std::error_code ec;
    fs::remove_all(dir, ec);  // this script's scratch conversion
  }
  return report;
}

}  // namespace

core::Result<std::vector<fs::path>> ListScripts(const std::vector<std::string>& inputs) {
  std::vector<fs::path> scripts;
  for (const std::string& input : inputs) {
    std::error_code ec;
    fs::path p(input);
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> found;
      for (const fs::directory_entry& e : fs::directory_iterator(p, ec)) {
        if (e.is_regular_file(ec) && IsWast(e.path())) found.push_back(e.path());
      }
      if (ec) return core::Error{"cannot list " + input + ": " + ec.message()};
      if (found.empty()) return core::Error{input + " holds no .wast files"};
      std::sort(found.begin(), found.end());
      scripts.insert(scripts.end(), found.begin(), found.end());
    } else if (!fs::exists(p, ec)) {
      return core::Error{input + ": no such file or folder"};
    } else if (IsWast(p) || IsJson(p)) {
      scripts.push_back(p);
    } else {
      return core::Error{input + ": expected a folder, a .wast script or a wast2json .json file"};
    }
  }
  if (scripts.empty()) return core::Error{"no scripts given"};
  return scripts;
}

core::Result<Totals> RunSuite(const SuiteOptions& options, const std::function<void(const FileReport&)>& on_file) {
  core::Result<std::vector<fs::path>> scripts = ListScripts(options.inputs);
  if (!scripts) return scripts.error();
  Converter converter;
  converter.cache_dir = options.cache_dir;
  std::optional<ScratchDir> scratch;
  if (std::any_of(scripts->begin(), scripts->end(), IsWast)) {
    core::Result<fs::path> tool = FindWast2Json();
    if (!tool) return tool.error();
    converter.tool = *tool;
    if (options.cache_dir.empty()) {
      core::Result<ScratchDir> made = ScratchDir::Create();
      if (!made) return made.error();
      scratch.emplace(std::move(*made));
      converter.scratch = &*scratch;
    } else {
      std::error_code ec;
      fs::create_directories(options.cache_dir, ec);
      if (ec) return core::Error{"cannot create the cache folder " + options.cache_dir + ": " + ec.message()};
    }
  }
  Totals totals;
  for (const fs::path& script : *scripts) {
    FileReport report = RunScript(script, converter, options);
    totals.Add(report);
    on_file(report);
  }
  return totals;
}

}  // namespace ampoule::spectest
