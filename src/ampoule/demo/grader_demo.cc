// `ampoule demo grader` (docs/demo.md): a vendor's RL grader whose score a
// lab re-runs, and a receipt that cannot pass for another episode.
#include <string>

#include <nlohmann/json.hpp>

#include "ampoule/demo/demos.h"

namespace ampoule::demo {
namespace {

using Json = nlohmann::json;

// `name` of the JSON object in the working folder's `file`, as text ("" if
// absent). Numbers are printed as JSON.
std::string JsonField(const Story& s, const std::string& file, const char* name) {
  core::Result<std::string> text = s.ReadFile(file);
  if (!text.ok()) return "";
  Json doc = Json::parse(*text, nullptr, false);
  if (!doc.is_object() || !doc.contains(name)) return "";
  return doc[name].is_string() ? doc[name].get<std::string>() : doc[name].dump();
}

}  // namespace

int RunGraderDemo(const DemoOptions& options, FILE* out) {
  core::Result<Story> begun = Story::Begin("grader", options, out);
  if (!begun.ok()) {
    fprintf(stderr, "ampoule demo grader: %s\n", begun.message().c_str());
    return 2;
  }
  Story& s = *begun;

  s.Heading("Setup: the vendor's signing key");
  s.Expect("setup: signing key", s.Run({"keygen", "-o", "vendor.key"}), 0);
  s.Say("The lab is given vendor.key.pub, grader.py and the episodes.");

  s.Heading("1. The vendor grades episode 7 and signs the run");
  core::Result<Captured> run = s.Run({"run", "grader.py", "--input", "episode.json=episode-7.json",
                                "--key", "vendor.key", "-o", "grade-7.receipt.json"});
  s.Expect("1. vendor: run grader.py with a receipt", run, 0);
  if (run.ok()) (void)s.WriteFile("grade-7.out", run->out);
  s.Say("(its stdout is grade-7.out, the grade the vendor hands over with the receipt)");

  s.Heading("2. The lab replays the grader on episode 7");
  bool replayed = s.Expect(
      "2. lab: replay on the pinned kernel",
      s.Run({"verify", "--replay", "grade-7.receipt.json", "--key", "vendor.key.pub", "--kernel",
             Story::kKernelName, "--program", "grader.py", "--input", "episode.json=episode-7.json",
             "--output", "grade-7.out"}),
      0, "REPLAY OK");
  const std::string episode = JsonField(s, "grade-7.out", "episode");
  const std::string score = JsonField(s, "grade-7.out", "score");
  const std::string max_score = JsonField(s, "grade-7.out", "max_score");
  s.Say("The re-run printed exactly the bytes of grade-7.out: " + episode + " scores " + score +
        " of " + max_score + " for the lab as for the vendor.");
  s.Check("2. lab: the same score", replayed && episode == "episode-7" && !score.empty(),
          "episode-7 with a score, reproduced by the replay",
          episode + " score " + score + " of " + max_score + (replayed ? ", replayed" : ""));

  s.Heading("3. The same receipt presented as the grade of episode 8");
  s.Expect("3. lab: receipt checked against episode-8.json",
           s.Run({"verify", "grade-7.receipt.json", "--key", "vendor.key.pub", "--kernel",
                  Story::kKernelName, "--program", "grader.py", "--input",
                  "episode.json=episode-8.json", "--output", "grade-7.out"}),
           1, "FAILED");
  const std::string wanted = JsonField(s, "episode-8.json", "episode");
  s.Say("The lab asked for " + wanted + " (episode-8.json); the signed output grade-7.out is the");
  s.Say("grade of " + episode + ".");
  s.Check("3. lab: episode id in the output", !wanted.empty() && !episode.empty() && episode != wanted,
          "mismatch caught",
          episode != wanted ? "mismatch caught (" + episode + " is not " + wanted + ")"
                            : "no mismatch (" + episode + ")");

  return s.Finish("grader");
}

}  // namespace ampoule::demo
