// The forgery matrix: receipts altered, forged, truncated or checked with the
// wrong keys, each through the whole command (files on disk, exit code and
// result line). No kernel needed: records are made by hand.
//
// Byte flips cover every position: every payload byte with three masks
// (0x01, 0x20, 0x80), every signature bit, and every byte of the receipt
// file with mask 0x01. Every truncation of the receipt file is tried too.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/statement.h"
#include "ampoule/verify/verify_testing.h"
#include "core/base64.h"

namespace ampoule::verify {
namespace {

using nlohmann::json;
using testing::CommandOutput;
using testing::RunCommand;
using testing::Scene;

size_t g_cases = 0;

class CountCases : public ::testing::Environment {
 public:
  void TearDown() override { printf("forgery matrix: %zu command runs checked\n", g_cases); }
};
const auto* const kCounter = ::testing::AddGlobalTestEnvironment(new CountCases);

class Forgery : public ::testing::Test {
 protected:
  // Runs the command and checks the exit code, the result line and that
  // exactly one line went to stdout.
  void Expect(const std::vector<std::string>& args, int code, const std::string& line,
              const std::string& what) {
    ++g_cases;
    CommandOutput r = RunCommand(args);
    EXPECT_EQ(r.exit_code, code) << what << "\n" << r.out << r.err;
    EXPECT_EQ(r.OutLines(), 1u) << what << "\n" << r.out;
    if (!line.empty()) EXPECT_EQ(r.Line().rfind(line, 0), 0u) << what << ": " << r.Line();
  }
  // A quick check: receipt, the signer's key, the kernel.
  std::vector<std::string> Quick(const std::string& receipt_path,
                                 const std::string& key = "key.pub") {
    return {receipt_path, "--key", s.Path(key), "--kernel", s.Path("kernel")};
  }
  receipt::Envelope Signed(const run::RunRecord& r) {
    return receipt::ParseEnvelope(run::MakeReceipt(r, s.key)).value();
  }
  std::string Write(const receipt::Envelope& e) { return s.WriteReceipt(receipt::SerializeEnvelope(e)); }
  std::string WriteJson(const json& j) { return s.WriteReceipt(j.dump(2)); }

  Scene s;
};

TEST_F(Forgery, TheGenuineReceiptVerifies) {
  std::string path = s.SignedReceipt(s.record);
  Expect(s.FullVerify(path), 0, "VERIFIED", "all files given");
  Expect(Quick(path), 0, "VERIFIED", "receipt, key and kernel");
}

TEST_F(Forgery, EveryPayloadByteFlippedFails) {
  receipt::Envelope e = Signed(s.record);
  for (size_t i = 0; i < e.payload.size(); ++i) {
    for (char mask : {'\x01', '\x20', '\x80'}) {
      receipt::Envelope t = e;
      t.payload[i] ^= mask;
      Expect(Quick(Write(t)), 1, "FAILED", "payload byte " + std::to_string(i));
    }
  }
}

TEST_F(Forgery, EverySignatureBitFlippedFails) {
  receipt::Envelope e = Signed(s.record);
  for (size_t bit = 0; bit < 64 * 8; ++bit) {
    receipt::Envelope t = e;
    t.signatures[0].sig[bit / 8] ^= char(1 << (bit % 8));
    Expect(Quick(Write(t)), 1, "FAILED", "signature bit " + std::to_string(bit));
  }
  receipt::Envelope t = e;
  t.signatures[0].sig.pop_back();
  Expect(Quick(Write(t)), 1, "FAILED", "63-byte signature");
  t = e;
  t.signatures[0].sig += '\0';
  Expect(Quick(Write(t)), 1, "FAILED", "65-byte signature");
}

// Every byte of the file: only the unsigned keyid hint (its name and its
// value) may change without failing, and then the receipt still verifies.
TEST_F(Forgery, EveryReceiptFileByteFlippedFailsOutsideTheKeyidHint) {
  std::string text = run::MakeReceipt(s.record, s.key);
  const size_t name = text.find("\"keyid\"") + 1;          // k of keyid
  const size_t value = text.find('"', text.find(':', name) + 1) + 1;  // first hex digit
  const size_t value_end = text.find('"', value);
  ASSERT_EQ(value_end - value, 64u);
  for (size_t i = 0; i < text.size(); ++i) {
    std::string t = text;
    t[i] ^= 0x01;
    bool hint = (i >= name && i < name + 5) || (i >= value && i < value_end);
    Expect(Quick(s.WriteReceipt(t)), hint ? 0 : 1, hint ? "VERIFIED" : "FAILED",
           "file byte " + std::to_string(i));
  }
}

TEST_F(Forgery, EveryTruncationFails) {
  std::string text = run::MakeReceipt(s.record, s.key);
  for (size_t n = 0; n + 1 < text.size(); ++n) {  // the last byte is the newline
    Expect(Quick(s.WriteReceipt(text.substr(0, n))), 1, "FAILED", "first " + std::to_string(n) + " bytes");
  }
}

TEST_F(Forgery, GarbageEmptyAndHugeFiles) {
  Expect(Quick(s.WriteReceipt("")), 1, "FAILED", "empty");
  Expect(Quick(s.WriteReceipt("{}")), 1, "FAILED", "empty object");
  Expect(Quick(s.WriteReceipt("null")), 1, "FAILED", "null");
  Expect(Quick(s.WriteReceipt(std::string("\x89PNG\r\n\x1a\n\0\0", 10))), 1, "FAILED", "binary");
  std::string text = run::MakeReceipt(s.record, s.key);
  Expect(Quick(s.WriteReceipt(text + text)), 1, "FAILED", "two receipts in one file");
  Expect(Quick(s.WriteReceipt(std::string(100, '[') )), 1, "FAILED", "deep nesting");
  // Over 64 MiB: a sparse file, so the test stays small on disk.
  std::string huge = s.Path("huge.json");
  testing::WriteFile(huge, text);
  ASSERT_EQ(truncate(huge.c_str(), (off_t(64) << 20) + 1), 0);
  Expect(Quick(huge), 6, "TOO LARGE", "receipt over 64 MiB");
  Expect(Quick(s.Path("missing.json")), 2, "ERROR", "missing receipt");
  Expect(Quick(s.Path("")), 2, "ERROR", "a directory as receipt");
}

TEST_F(Forgery, ResignedWithAnotherKeyFails) {
  std::string forged = s.WriteReceipt(run::MakeReceipt(s.record, s.other));
  Expect(Quick(forged), 1, "FAILED", "forger's key, our key named");
  Expect(Quick(forged, "other.pub"), 0, "VERIFIED", "the forger's key, if you name it");
  std::string genuine = s.SignedReceipt(s.record);
  Expect(Quick(genuine, "other.pub"), 1, "FAILED", "wrong key named");
}

TEST_F(Forgery, PayloadTypeChangedFails) {
  receipt::Envelope e = Signed(s.record);
  for (const char* type : {"application/json", "application/vnd.in-toto+json ", "",
                           "application/vnd.in-toto+jsoN"}) {
    receipt::Envelope t = e;
    t.payload_type = type;
    Expect(Quick(Write(t)), 1, "FAILED", std::string("type '") + type + "', old signature");
    receipt::Envelope resigned = receipt::SignEnvelope(type, e.payload, s.key);
    Expect(Quick(Write(resigned)), 1, "FAILED", std::string("type '") + type + "', re-signed");
  }
}

TEST_F(Forgery, SignedFieldsChangedWithoutResigningFail) {
  receipt::Envelope e = Signed(s.record);
  std::vector<std::pair<std::string, run::RunRecord>> changes;
  auto change = [&](const std::string& what, auto edit) {
    run::RunRecord r = s.record;
    edit(r);
    changes.push_back({what, r});
  };
  change("stdout digest", [](run::RunRecord& r) { r.stdout_digest.sha256 = testing::Sha("7\n"); });
  change("fuel used", [](run::RunRecord& r) { r.result.fuel_used -= 1; });
  change("status", [](run::RunRecord& r) { r.result.status = 1; });
  change("kernel", [](run::RunRecord& r) { r.kernel_sha256 = testing::Sha("another kernel"); });
  change("terminated", [](run::RunRecord& r) { r.result.terminated = true; });
  change("program", [](run::RunRecord& r) { r.program.sha256 = testing::Sha("print(7)"); });
  change("input", [](run::RunRecord& r) { r.inputs[0].sha256 = testing::Sha("9\n"); });
  change("seed", [](run::RunRecord& r) { r.seed = 8; });
  change("time", [](run::RunRecord& r) { r.finished_at = "2026-11-29T19:00:02Z"; });
  for (const auto& [what, r] : changes) {
    receipt::Envelope t = e;
    t.payload = receipt::SerializeStatement(run::StatementForRecord(r));
    Expect(Quick(Write(t)), 1, "FAILED", what);
  }
}

TEST_F(Forgery, SubjectSwappedFromAnotherReceiptFails) {
  run::RunRecord other = s.record;
  other.stdout_digest = {testing::Sha("7\n"), 2, 2, false};
  receipt::Envelope mine = Signed(s.record);
  receipt::Envelope theirs = Signed(other);
  // Their subject in my statement, my signature.
  receipt::Statement st = receipt::ParseStatement(mine.payload).value();
  st.subject[0] = receipt::ParseStatement(theirs.payload).value().subject[0];
  receipt::Envelope t = mine;
  t.payload = receipt::SerializeStatement(st);
  Expect(Quick(Write(t)), 1, "FAILED", "their subject, my signature");
  // Their whole payload, my signature; my payload, their signature.
  t = mine;
  t.payload = theirs.payload;
  Expect(Quick(Write(t)), 1, "FAILED", "their payload, my signature");
  t = mine;
  t.signatures = theirs.signatures;
  Expect(Quick(Write(t)), 1, "FAILED", "my payload, their signature");
  // Signed by the key, but subject and predicate disagree: inconsistent.
  Expect(Quick(Write(receipt::SignEnvelope(receipt::kInTotoPayloadType,
                                           receipt::SerializeStatement(st), s.key))),
         1, "FAILED", "signed, subject disagrees with the predicate");
  // Both receipts are genuine: the output file decides which one matches.
  std::string theirs_path = Write(theirs);
  Expect({theirs_path, "--key", s.Path("key.pub"), "--kernel", s.Path("kernel"), "--output",
          s.Path("stdout")}, 1, "FAILED", "genuine receipt of another output");
}

TEST_F(Forgery, WrongAndWeakKeys) {
  std::string path = s.SignedReceipt(s.record);
  auto with_key_text = [&](const std::string& text, const std::string& what) {
    testing::WriteFile(s.Path("k.pub"), text);
    Expect(Quick(path, "k.pub"), 2, "ERROR", what);
  };
  std::string identity(32, '\0');
  identity[0] = 1;
  with_key_text("ed25519 " + core::Base64Encode(identity) + "\n", "identity point (weak)");
  with_key_text("ed25519 " + core::Base64Encode(std::string(32, '\0')) + "\n", "order-4 point (weak)");
  with_key_text("ed25519 " + core::Base64Encode(std::string(31, 'x')) + "\n", "31-byte key");
  with_key_text("ed25519 !!!!\n", "not base64");
  with_key_text("", "empty key file");
  with_key_text("# only a comment\n", "no key");
  with_key_text(receipt::FormatPublicKey(s.key.public_key()) +
                    receipt::FormatPublicKey(s.other.public_key()),
                "two keys given to --key");
  Expect(Quick(path, "key"), 2, "ERROR", "secret key file given as --key");
  Expect(Quick(path, "missing.pub"), 2, "ERROR", "missing key file");
  // Trusted-keys files: any one trusted key that signed passes; a weak one is an error.
  testing::WriteFile(s.Path("trusted"), receipt::FormatPublicKey(s.other.public_key()) +
                                            receipt::FormatPublicKey(s.key.public_key()));
  Expect({path, "--trusted-keys", s.Path("trusted"), "--kernel", s.Path("kernel")}, 0, "VERIFIED",
         "signer among trusted keys");
  testing::WriteFile(s.Path("trusted"), receipt::FormatPublicKey(s.other.public_key()));
  Expect({path, "--trusted-keys", s.Path("trusted"), "--kernel", s.Path("kernel")}, 1, "FAILED",
         "signer not among trusted keys");
  testing::WriteFile(s.Path("trusted"), receipt::FormatPublicKey(s.key.public_key()) + "ed25519 " +
                                            core::Base64Encode(identity) + "\n");
  Expect({path, "--trusted-keys", s.Path("trusted"), "--kernel", s.Path("kernel")}, 2, "ERROR",
         "a weak key among trusted keys");
}

TEST_F(Forgery, SignedOutcomes) {
  auto expect = [&](auto edit, int code, const std::string& line, const std::string& what) {
    run::RunRecord r = s.record;
    edit(r);
    std::string path = s.SignedReceipt(r);
    Expect(Quick(path), code, line, what);
    return path;
  };
  std::string terminated = expect(
      [](run::RunRecord& r) {
        r.result = {run::kStatusTerminated, 0, run::Stop::kTimeout, 0, true, false, ""};
      },
      3, "NOT REPLAYABLE", "terminated");
  Expect({terminated, "--key", s.Path("key.pub")}, 3, "NOT REPLAYABLE", "terminated, no kernel (3 > 5)");
  expect([](run::RunRecord& r) { r.result = {3, 3, run::Stop::kExit, 10, false, false, ""}; }, 4,
         "RUN FAILED", "exit status 3");
  std::string fuel = expect(
      [](run::RunRecord& r) {
        r.result = {run::kStatusOutOfFuel, 0, run::Stop::kFuel, r.limits.fuel, false, false, ""};
      },
      4, "RUN FAILED", "fuel exhausted");
  Expect({fuel, "--key", s.Path("key.pub")}, 4, "RUN FAILED", "fuel exhausted, no kernel (4 > 5)");
  expect([](run::RunRecord& r) { r.result = {run::kStatusTrap, 0, run::Stop::kTrap, 5, false, false, "unreachable"}; },
         4, "RUN FAILED", "trap");
  expect([](run::RunRecord& r) { r.result = {run::kStatusMemoryCap, 1, run::Stop::kMemory, 5, false, true, ""}; },
         4, "RUN FAILED", "memory cap");
  std::string ok = s.SignedReceipt(s.record);
  Expect({ok, "--key", s.Path("key.pub")}, 5, "INCOMPLETE", "kernel not given");
  Expect({ok, "--key", s.Path("key.pub"), "--program", s.Path("prog.py")}, 5, "INCOMPLETE",
         "program but no kernel");
}

TEST_F(Forgery, EveryFileGivenMustMatch) {
  std::string path = s.SignedReceipt(s.record);
  auto full_with = [&](const std::string& flag, const std::string& value) {
    std::vector<std::string> args = s.FullVerify(path);
    for (size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] == flag && (flag != "--input" || args[i + 1].rfind(value.substr(0, 5), 0) == 0)) {
        args[i + 1] = value;
        return args;
      }
    }
    args.push_back(flag);
    args.push_back(value);
    return args;
  };
  testing::WriteFile(s.Path("wrong"), "7\n");
  Expect(full_with("--kernel", s.Path("wrong")), 1, "FAILED", "another kernel");
  Expect(full_with("--program", s.Path("wrong")), 1, "FAILED", "another program");
  Expect(full_with("--output", s.Path("wrong")), 1, "FAILED", "another output");
  Expect(full_with("--input", "a.csv=" + s.Path("wrong")), 1, "FAILED", "another input");
  Expect(full_with("--stdin", s.Path("wrong")), 1, "FAILED", "another stdin");
  std::vector<std::string> extra = s.FullVerify(path);
  extra.insert(extra.end(), {"--input", "c.txt=" + s.Path("wrong")});
  Expect(extra, 1, "FAILED", "an input the receipt does not name");
  Expect(full_with("--program", s.Path("nope")), 2, "ERROR", "unreadable program");
  Expect(full_with("--kernel", s.Path("nope")), 2, "ERROR", "unreadable kernel");
  std::string huge = s.Path("huge");
  testing::WriteFile(huge, "x");
  ASSERT_EQ(truncate(huge.c_str(), (off_t(64) << 20) + 1), 0);
  Expect(full_with("--input", "a.csv=" + huge), 6, "TOO LARGE", "input over 64 MiB");
  Expect(full_with("--output", huge), 6, "TOO LARGE", "output over 64 MiB");
  Expect(full_with("--program", huge), 6, "TOO LARGE", "program over 64 MiB");
  // Exactly 64 MiB is allowed (and simply does not match).
  ASSERT_EQ(truncate(huge.c_str(), off_t(64) << 20), 0);
  Expect(full_with("--output", huge), 1, "FAILED", "output of exactly 64 MiB");
}

TEST_F(Forgery, MostSeriousProblemWins) {
  std::string genuine = s.SignedReceipt(s.record);
  std::string huge = s.Path("huge");
  testing::WriteFile(huge, "x");
  ASSERT_EQ(truncate(huge.c_str(), (off_t(64) << 20) + 1), 0);
  std::string forged = s.WriteReceipt(run::MakeReceipt(s.record, s.other), "forged.json");
  // 2 > 6 > 1.
  Expect({forged, "--key", s.Path("key.pub"), "--input", "a.csv=" + huge, "--program",
          s.Path("nope")}, 2, "ERROR", "forged + huge + unreadable");
  Expect({forged, "--key", s.Path("key.pub"), "--input", "a.csv=" + huge}, 6, "TOO LARGE",
         "forged + huge input");
  Expect({forged, "--key", s.Path("key.pub"), "--output", huge}, 6, "TOO LARGE", "forged + huge output");
  // 1 > 3 > 4 > 5.
  run::RunRecord r = s.record;
  r.result = {run::kStatusTerminated, 0, run::Stop::kTimeout, 0, true, false, ""};
  std::string terminated = s.WriteReceipt(run::MakeReceipt(r, s.key), "t.json");
  Expect({terminated, "--key", s.Path("key.pub"), "--program", s.Path("a.csv")}, 1, "FAILED",
         "terminated + wrong program");
  r.result.status = 5;
  std::string both = s.WriteReceipt(run::MakeReceipt(r, s.key), "both.json");
  Expect({both, "--key", s.Path("key.pub")}, 3, "NOT REPLAYABLE", "terminated + nonzero status");
}

// Rewrites the receipt's base64 in another spelling.
std::string Reencode(const std::string& text, bool url_safe, bool padded) {
  json j = json::parse(text);
  auto re = [&](const std::string& b64) {
    std::string s = b64;
    if (url_safe) {
      for (char& c : s) c = c == '+' ? '-' : c == '/' ? '_' : c;
    }
    if (!padded) {
      while (!s.empty() && s.back() == '=') s.pop_back();
    }
    return s;
  };
  j["payload"] = re(j["payload"]);
  for (auto& sig : j["signatures"]) sig["sig"] = re(sig["sig"]);
  return j.dump();
}

TEST_F(Forgery, Base64Spellings) {
  // Search for a record whose payload's base64 uses both '+' and '/' so the
  // URL-safe spelling really differs.
  // In ASCII text, '+' and '/' only come from '>', '~', '?' at every third byte.
  // A prefix of 0-2 bytes moves the special characters through the three
  // base64 alignments and changes the length, so that some payload has
  // them and needs '=' padding whatever the rest of the record holds.
  std::string text;
  bool found = false;
  for (uint64_t seed = 0; seed < 1000 && !found; ++seed) {
    run::RunRecord r = s.record;
    r.program.name = std::string(seed % 3, 'x') + "what?>~??>>~.py";
    r.seed = seed;
    text = run::MakeReceipt(r, s.key);
    std::string p = json::parse(text)["payload"];
    found = p.find('+') != std::string::npos && p.find('/') != std::string::npos && p.back() == '=';
  }
  ASSERT_TRUE(found) << "no record in the search gives a payload with '+', '/' and padding";
  for (bool url : {false, true}) {
    for (bool pad : {false, true}) {
      Expect(Quick(s.WriteReceipt(Reencode(text, url, pad))), 0, "VERIFIED",
             std::string("url-safe ") + (url ? "yes" : "no") + ", padded " + (pad ? "yes" : "no"));
    }
  }
  // Mixing the alphabets in one string is refused.
  json j = json::parse(Reencode(text, true, true));
  std::string p = j["payload"];
  size_t dash = p.find('-');
  ASSERT_NE(dash, std::string::npos);
  size_t slash = json::parse(text)["payload"].get<std::string>().find('/');
  ASSERT_NE(slash, std::string::npos);
  p[slash] = '/';
  if (slash != dash) {
    j["payload"] = p;
    Expect(Quick(s.WriteReceipt(j.dump())), 1, "FAILED", "mixed alphabets");
  }
}

TEST_F(Forgery, SeveralSignaturesAndKeyidHints) {
  receipt::Envelope e = Signed(s.record);
  receipt::Envelope two = receipt::SignEnvelope(receipt::kInTotoPayloadType, e.payload, s.other);
  receipt::AddSignature(two, s.key);
  Expect(Quick(Write(two)), 0, "VERIFIED", "forger's signature first, ours second");
  receipt::Envelope junk = e;
  junk.signatures.insert(junk.signatures.begin(), {"", std::string(64, '\0')});
  Expect(Quick(Write(junk)), 0, "VERIFIED", "a junk signature before ours");
  receipt::Envelope lying = receipt::SignEnvelope(receipt::kInTotoPayloadType, e.payload, s.other);
  lying.signatures[0].keyid = s.key.public_key().KeyId();
  Expect(Quick(Write(lying)), 1, "FAILED", "forger's signature with our keyid");
  receipt::Envelope wrong_hint = e;
  wrong_hint.signatures[0].keyid = s.other.public_key().KeyId();
  Expect(Quick(Write(wrong_hint)), 0, "VERIFIED", "our signature, wrong keyid");
  wrong_hint.signatures[0].keyid = "";
  Expect(Quick(Write(wrong_hint)), 0, "VERIFIED", "our signature, empty keyid");
  receipt::Envelope none = e;
  none.signatures.clear();
  Expect(Quick(Write(none)), 1, "FAILED", "no signatures");
  receipt::Envelope many = e;
  for (int i = 0; i < 16; ++i) many.signatures.insert(many.signatures.begin(), {"", std::string(64, '\x01')});
  Expect(Quick(Write(many)), 1, "FAILED", "17 signatures (over the cap of 16)");
}

TEST_F(Forgery, UnknownFieldsIgnoredRequiredFieldsEnforced) {
  receipt::Envelope e = Signed(s.record);
  json env = json::parse(receipt::SerializeEnvelope(e));
  json extra = env;
  extra["future"] = {1, 2};
  extra["signatures"][0]["extra"] = "x";
  Expect(Quick(WriteJson(extra)), 0, "VERIFIED", "unknown envelope fields");
  for (const char* field : {"payload", "payloadType", "signatures"}) {
    json t = env;
    t.erase(field);
    Expect(Quick(WriteJson(t)), 1, "FAILED", std::string("envelope without ") + field);
  }
  json nosig = env;
  nosig["signatures"][0].erase("sig");
  Expect(Quick(WriteJson(nosig)), 1, "FAILED", "signature without sig");
  json nokeyid = env;
  nokeyid["signatures"][0].erase("keyid");
  Expect(Quick(WriteJson(nokeyid)), 0, "VERIFIED", "signature without keyid (optional)");

  // Inside the signed statement: unknown fields pass, missing required fail.
  json statement = json::parse(e.payload);
  auto signed_statement = [&](const json& st, int code, const std::string& line, const std::string& what) {
    Expect(Quick(Write(receipt::SignEnvelope(receipt::kInTotoPayloadType, st.dump(), s.key))), code,
           line, what);
  };
  json st = statement;
  st["future"] = true;
  st["subject"][0]["annotations"] = {{"a", 1}};
  st["subject"][0]["digest"]["sha512"] = std::string(128, 'a');
  st["predicate"]["future"] = {{"x", 1}};
  st["predicate"]["result"]["future"] = 1;
  signed_statement(st, 0, "VERIFIED", "unknown statement and predicate fields");
  for (const char* field : {"_type", "subject", "predicateType"}) {
    json t = statement;
    t.erase(field);
    signed_statement(t, 1, "FAILED", std::string("statement without ") + field);
  }
  for (const char* field : {"kernel", "runtime", "program", "inputs", "stdin", "seed", "limits",
                            "result", "stdout", "stderr"}) {
    json t = statement;
    t["predicate"].erase(field);
    signed_statement(t, 1, "FAILED", std::string("predicate without ") + field);
  }
  for (const char* field : {"status", "exit_code", "stop", "fuel_used", "terminated", "memory_cap_hit"}) {
    json t = statement;
    t["predicate"]["result"].erase(field);
    signed_statement(t, 1, "FAILED", std::string("predicate without result.") + field);
  }
  json t = statement;
  t["predicate"].erase("started_at");
  t["predicate"].erase("finished_at");
  signed_statement(t, 0, "VERIFIED", "times are optional");
  t = statement;
  t["predicateType"] = "https://ampoule.dev/attestations/run/v1";
  signed_statement(t, 1, "FAILED", "another predicate type");
  t = statement;
  t["subject"].erase(1);
  signed_statement(t, 1, "FAILED", "no stderr subject");
  t = statement;
  t["predicate"]["result"]["status"] = "0";
  signed_statement(t, 1, "FAILED", "status as a string");
  t = statement;
  t["predicate"]["result"]["terminated"] = 0;
  signed_statement(t, 1, "FAILED", "terminated as a number");
  // A duplicate key is an error, never "last one wins".
  std::string dup = statement.dump();
  dup.insert(1, "\"predicateType\":\"x\",");
  Expect(Quick(Write(receipt::SignEnvelope(receipt::kInTotoPayloadType, dup, s.key))), 1, "FAILED",
         "duplicate key in the statement");
}

TEST_F(Forgery, UsageErrors) {
  std::string path = s.SignedReceipt(s.record);
  Expect({path}, 2, "ERROR", "no key");
  Expect({}, 2, "ERROR", "nothing");
  Expect({path, "--key", s.Path("key.pub"), "--bogus"}, 2, "ERROR", "unknown option");
  Expect({path, "--key", s.Path("key.pub"), "--help"}, 2, "ERROR", "help with a receipt");
  CommandOutput help = RunCommand({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.Line(), "VERIFIED");
  EXPECT_NE(help.out.find("usage: ampoule-verify"), std::string::npos);
}

}  // namespace
}  // namespace ampoule::verify
