// The run record (receipt predicate v4, and v2 and v3 as earlier receipts
// hold it): JSON round trip, required fields, the isolation's exact names,
// and the status and stop rules of `ampoule run`.
#include "ampoule/run/run_record.h"

#include <gtest/gtest.h>

namespace ampoule::run {
namespace {

RunRecord Sample() {
  RunRecord r;
  r.kernel_sha256 = std::string(64, 'a');
  r.cost_table_version = 1;
  r.runtime = "python";
  r.program = {"prog.py", std::string(64, 'b'), 12};
  r.inputs = {{"a.csv", std::string(64, 'c'), 3}, {"b.json", std::string(64, 'd'), 4}};
  r.stdin_digest = {std::string(64, 'e'), 0};
  r.seed = 7;
  r.limits = {1000, 1 << 20, 2.5, 4096, 1 << 24, 100, 8};
  r.result = {126, 0, Stop::kTrap, 99, false, false, "unreachable executed"};
  r.stdout_digest = {std::string(64, 'f'), 10, 20, true};
  r.stderr_digest = {std::string(64, '0'), 0, 0, false};
  r.outputs = {{"report.json", std::string(64, '1'), 5}, {"tables/a.csv", std::string(64, '2'), 6}};
  r.outputs_left_out = 1;
  r.started_at = "2026-11-29T19:00:00.000Z";
  r.finished_at = "2026-11-29T19:00:01.000Z";
  r.isolation = Isolation::kJail;
  return r;
}

TEST(RunRecord, RoundTrip) {
  RunRecord r = Sample();
  core::Result<RunRecord> back = RecordFromJson(RecordToJson(r));
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(RecordToJson(*back), RecordToJson(r));
  EXPECT_EQ(back->result.trap, "unreachable executed");
  EXPECT_EQ(back->inputs.size(), 2u);
  EXPECT_DOUBLE_EQ(back->limits.timeout_seconds, 2.5);
}

TEST(RunRecord, VersionThreeHoldsFilesystemCapsAndOutputFiles) {
  nlohmann::json j = RecordToJson(Sample());
  EXPECT_EQ(j["limits"]["fs_bytes"], 1 << 24);
  EXPECT_EQ(j["outputs"][1]["name"], "tables/a.csv");
  EXPECT_EQ(j["outputs_left_out"], 1);
  for (const char* field : {"outputs", "outputs_left_out"}) {
    nlohmann::json missing = j;
    missing.erase(field);
    core::Result<RunRecord> r = RecordFromJson(missing);
    ASSERT_FALSE(r.ok()) << field;
    EXPECT_NE(r.message().find(field), std::string::npos) << r.message();
  }
  nlohmann::json unsorted = j;
  std::swap(unsorted["outputs"][0], unsorted["outputs"][1]);
  EXPECT_FALSE(RecordFromJson(unsorted).ok());
  nlohmann::json climbing = j;
  climbing["outputs"][0]["name"] = "../../home/x";
  EXPECT_FALSE(RecordFromJson(climbing).ok());
}

TEST(RunRecord, VersionFourNamesTheIsolationExactly) {
  for (Isolation isolation : {Isolation::kNone, Isolation::kJail, Isolation::kVm}) {
    RunRecord r = Sample();
    r.isolation = isolation;
    nlohmann::json j = RecordToJson(r);
    EXPECT_EQ(j["isolation"], IsolationName(isolation));
    core::Result<RunRecord> back = RecordFromJson(j);
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(back->isolation, isolation);
  }
  EXPECT_EQ(RecordToJson(Sample())["isolation"], "jail");
  // Only the three names, byte for byte: no case folding, no trimming, no
  // other value or type, and "unknown" is not a value a record can state.
  for (nlohmann::json bad : std::vector<nlohmann::json>{"Jail", "JAIL", "jail ", " jail", "jail\n", "", "unknown",
                                                        "sandbox", std::string("none\0", 5), nullptr, 1, true,
                                                        nlohmann::json::array({"jail"}),
                                                        nlohmann::json::object({{"kind", "jail"}})}) {
    nlohmann::json j = RecordToJson(Sample());
    j["isolation"] = bad;
    core::Result<RunRecord> r = RecordFromJson(j);
    ASSERT_FALSE(r.ok()) << bad.dump();
    EXPECT_NE(r.message().find("'isolation'"), std::string::npos) << r.message();
  }
  nlohmann::json missing = RecordToJson(Sample());
  missing.erase("isolation");
  core::Result<RunRecord> r = RecordFromJson(missing);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("'isolation' is missing"), std::string::npos) << r.message();
  // A record whose isolation nobody set is never written as if it had one:
  // without the field, its receipt does not verify.
  RunRecord unset = Sample();
  unset.isolation = Isolation::kUnknown;
  EXPECT_FALSE(RecordToJson(unset).contains("isolation"));
  EXPECT_FALSE(RecordFromJson(RecordToJson(unset)).ok());
}

TEST(RunRecord, OlderVersionsDoNotSayTheirIsolation) {
  RunRecord v3 = Sample();
  v3.predicate_version = 3;
  nlohmann::json j = RecordToJson(v3);
  EXPECT_FALSE(j.contains("isolation"));
  core::Result<RunRecord> back = RecordFromJson(j, 3);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->isolation, Isolation::kUnknown);
  // A field version 3 does not define is ignored, whatever it says: it
  // cannot lend an older receipt a claim.
  j["isolation"] = "jail";
  back = RecordFromJson(j, 3);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->isolation, Isolation::kUnknown);
  EXPECT_EQ(RunPredicateVersion(kRunPredicateType), 4u);
  EXPECT_EQ(RunPredicateVersion(kRunPredicateTypeV3), 3u);
  EXPECT_EQ(RunPredicateType(4), kRunPredicateType);
  EXPECT_EQ(RunPredicateType(3), kRunPredicateTypeV3);
  EXPECT_EQ(RunPredicateType(5), "");
}

TEST(RunRecord, IsolationNamesAndOrder) {
  for (Isolation i : {Isolation::kNone, Isolation::kJail, Isolation::kVm}) {
    EXPECT_EQ(*ParseIsolation(IsolationName(i)), i);
  }
  EXPECT_EQ(IsolationName(Isolation::kUnknown), "unknown");
  for (const char* bad : {"unknown", "Jail", "jail ", "", "VM", "microvm"}) {
    core::Result<Isolation> r = ParseIsolation(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.message().find("none, jail or vm"), std::string::npos) << r.message();
  }
  // none < jail < vm; unknown meets no minimum but none.
  EXPECT_TRUE(IsolationAtLeast(Isolation::kJail, Isolation::kJail));
  EXPECT_TRUE(IsolationAtLeast(Isolation::kVm, Isolation::kJail));
  EXPECT_FALSE(IsolationAtLeast(Isolation::kNone, Isolation::kJail));
  EXPECT_FALSE(IsolationAtLeast(Isolation::kJail, Isolation::kVm));
  EXPECT_FALSE(IsolationAtLeast(Isolation::kUnknown, Isolation::kJail));
  EXPECT_FALSE(IsolationAtLeast(Isolation::kUnknown, Isolation::kVm));
  EXPECT_TRUE(IsolationAtLeast(Isolation::kUnknown, Isolation::kNone));
  EXPECT_TRUE(IsolationAtLeast(Isolation::kNone, Isolation::kNone));
}

TEST(RunRecord, VersionTwoReadsAndWritesWithoutTheNewFields) {
  RunRecord v2 = Sample();
  v2.predicate_version = 2;
  v2.outputs.clear();
  v2.outputs_left_out = 0;
  nlohmann::json j = RecordToJson(v2);
  EXPECT_FALSE(j.contains("outputs"));
  EXPECT_FALSE(j["limits"].contains("fs_bytes"));
  core::Result<RunRecord> back = RecordFromJson(j, 2);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->predicate_version, 2u);
  EXPECT_EQ(back->limits.fs_bytes, 0u);
  EXPECT_EQ(RecordToJson(*back), j);
  EXPECT_FALSE(RecordFromJson(j, 3).ok());  // version 3 requires its fields
  EXPECT_FALSE(RecordFromJson(j, 4).ok());
  EXPECT_FALSE(RecordFromJson(j, 5).ok());
  EXPECT_EQ(back->isolation, Isolation::kUnknown);
  EXPECT_EQ(RunPredicateVersion(kRunPredicateTypeV2), 2u);
  EXPECT_EQ(RunPredicateVersion("https://ampoule.dev/attestations/run/v9"), 0u);
}

TEST(RunRecord, TrapMessageOnlyForTraps) {
  RunRecord r = Sample();
  r.result.stop = Stop::kExit;
  EXPECT_FALSE(RecordToJson(r)["result"].contains("trap"));
}

TEST(RunRecord, UnknownFieldsIgnoredTimesOptional) {
  nlohmann::json j = RecordToJson(Sample());
  j["future_field"] = {1, 2};
  j["result"]["another"] = "x";
  j.erase("started_at");
  j.erase("finished_at");
  EXPECT_TRUE(RecordFromJson(j).ok());
}

TEST(RunRecord, RequiredFieldsNamedInErrors) {
  const char* paths[][2] = {{"kernel", "sha256"}, {"result", "fuel_used"}, {"result", "terminated"},
                            {"stdout", "sha256"}, {"limits", "fuel"},     {"program", "name"}};
  for (auto& p : paths) {
    nlohmann::json j = RecordToJson(Sample());
    j[p[0]].erase(p[1]);
    core::Result<RunRecord> r = RecordFromJson(j);
    ASSERT_FALSE(r.ok()) << p[0] << "." << p[1];
    EXPECT_NE(r.message().find(std::string(p[0]) + "." + p[1]), std::string::npos) << r.message();
  }
  nlohmann::json j = RecordToJson(Sample());
  j.erase("seed");
  EXPECT_FALSE(RecordFromJson(j).ok());
}

TEST(RunRecord, WrongTypesAndValuesRefused) {
  auto with = [](auto edit) {
    nlohmann::json j = RecordToJson(Sample());
    edit(j);
    return RecordFromJson(j).ok();
  };
  EXPECT_FALSE(with([](auto& j) { j["kernel"]["sha256"] = "ABC"; }));
  EXPECT_FALSE(with([](auto& j) { j["kernel"]["sha256"] = std::string(64, 'A'); }));  // not lowercase
  EXPECT_FALSE(with([](auto& j) { j["result"]["fuel_used"] = -1; }));
  EXPECT_FALSE(with([](auto& j) { j["result"]["fuel_used"] = "5"; }));
  EXPECT_FALSE(with([](auto& j) { j["result"]["stop"] = "crashed"; }));
  EXPECT_FALSE(with([](auto& j) { j["result"]["terminated"] = 0; }));
  EXPECT_FALSE(with([](auto& j) { j["result"]["status"] = 256; }));
  EXPECT_FALSE(with([](auto& j) { j["runtime"] = "ruby"; }));
  EXPECT_FALSE(with([](auto& j) { j["inputs"] = nlohmann::json::object(); }));
  EXPECT_FALSE(with([](auto& j) { j["inputs"][0] = 3; }));
  EXPECT_FALSE(RecordFromJson(nlohmann::json::array()).ok());
}

TEST(RunRecord, StatusRules) {
  EXPECT_EQ(StatusFor(Stop::kExit, 0), 0);
  EXPECT_EQ(StatusFor(Stop::kExit, 3), 3);
  EXPECT_EQ(StatusFor(Stop::kExit, 119), 119);
  EXPECT_EQ(StatusFor(Stop::kExit, 120), kStatusGuestHigh);
  EXPECT_EQ(StatusFor(Stop::kExit, 255), kStatusGuestHigh);
  EXPECT_EQ(StatusFor(Stop::kExit, -1), kStatusGuestHigh);
  EXPECT_EQ(StatusFor(Stop::kTrap, 0), kStatusTrap);
  EXPECT_EQ(StatusFor(Stop::kFuel, 0), kStatusOutOfFuel);
  EXPECT_EQ(StatusFor(Stop::kMemory, 1), kStatusMemoryCap);
  EXPECT_EQ(StatusFor(Stop::kTimeout, 0), kStatusTerminated);
}

TEST(RunRecord, MemoryStopOnlyWhenTheGuestFailedAfterTheCap) {
  EXPECT_EQ(ClassifyStop(Stop::kExit, 1, true), Stop::kMemory);
  EXPECT_EQ(ClassifyStop(Stop::kTrap, 0, true), Stop::kMemory);
  EXPECT_EQ(ClassifyStop(Stop::kExit, 0, true), Stop::kExit);  // it coped with MemoryError
  EXPECT_EQ(ClassifyStop(Stop::kExit, 1, false), Stop::kExit);
  EXPECT_EQ(ClassifyStop(Stop::kFuel, 0, true), Stop::kFuel);
}

}  // namespace
}  // namespace ampoule::run
