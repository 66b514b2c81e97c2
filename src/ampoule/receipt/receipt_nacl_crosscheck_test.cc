// Cross-check against an independent implementation: a short Python DSSE
// verifier over PyNaCl (Debian's python3-nacl), written from the DSSE spec
// (testdata/dsse_nacl.py). Our envelopes must verify there, tampered ones
// must not, and envelopes it signs must verify here.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "ampoule/receipt/envelope.h"
#include "ampoule/receipt/key_file.h"
#include "ampoule/receipt/statement.h"
#include "ampoule/receipt/verify.h"
#include "core/file_read.h"
#include "core/hex.h"
#include "core/sha256.h"

namespace ampoule::receipt {
namespace {

// Debian's interpreter, where python3-nacl installs; a python3 earlier on
// PATH (a virtualenv, pyenv) may not have it.
constexpr const char* kPython = "/usr/bin/python3";

int RunShell(const std::string& command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class NaclCrossCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* source = std::getenv("AMPOULE_SOURCE_DIR");
    if (source == nullptr) GTEST_SKIP() << "AMPOULE_SOURCE_DIR is not set (ctest sets it)";
    script_ = std::string(source) + "/src/ampoule/receipt/testdata/dsse_nacl.py";
    if (RunShell(std::string(kPython) + " -c 'import nacl.signing' 2>/dev/null") != 0) {
      GTEST_SKIP() << "python3-nacl is not installed (apt-get install python3-nacl)";
    }
    char tmpl[] = "/tmp/ampoule-nacl-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ASSERT_TRUE(WritePublicKeyFile(dir_ + "/k.pub", key_.public_key()).ok());
  }
  void TearDown() override {
    if (!dir_.empty()) std::system(("rm -rf '" + dir_ + "'").c_str());
  }

  // Exit status of the Python verifier on `envelope` (0 verified, 1 not).
  int PythonVerify(const Envelope& envelope) {
    std::ofstream(dir_ + "/e.json") << SerializeEnvelope(envelope);
    return RunShell(std::string(kPython) + " '" + script_ + "' verify '" + dir_ + "/e.json' '" +
                    dir_ + "/k.pub' >/dev/null");
  }

  core::ed25519::SecretKey key_ = core::ed25519::SecretKey::Generate();
  std::string script_, dir_;
};

std::string Payload(const std::string& name) {
  Statement statement;
  statement.subject.push_back({name, {{"sha256", core::Sha256Hex(name)}}});
  statement.predicate_type = "https://example.com/run/v2";
  statement.predicate = {{"note", "caf\xc3\xa9 \xe2\x82\xac"}, {"fuel", 123456789}};
  return SerializeStatement(statement);
}

TEST_F(NaclCrossCheck, OurEnvelopesVerifyThere) {
  for (const char* name : {"stdout", "out put", "\xc3\xa9t\xc3\xa9"}) {
    EXPECT_EQ(PythonVerify(SignEnvelope(kInTotoPayloadType, Payload(name), key_)), 0) << name;
  }
}

TEST_F(NaclCrossCheck, TamperedEnvelopesFailThere) {
  Envelope envelope = SignEnvelope(kInTotoPayloadType, Payload("stdout"), key_);
  for (size_t i : {size_t{0}, envelope.payload.size() / 2, envelope.payload.size() - 1}) {
    Envelope tampered = envelope;
    tampered.payload[i] ^= 0x20;
    EXPECT_EQ(PythonVerify(tampered), 1) << "payload byte " << i;
  }
  for (size_t i : {size_t{0}, size_t{31}, size_t{32}, size_t{63}}) {
    Envelope tampered = envelope;
    tampered.signatures[0].sig[i] ^= 0x01;
    EXPECT_EQ(PythonVerify(tampered), 1) << "signature byte " << i;
  }
  EXPECT_EQ(PythonVerify(SignEnvelope(kInTotoPayloadType, Payload("stdout"),
                                      core::ed25519::SecretKey::Generate())),
            1);
}

TEST_F(NaclCrossCheck, TheirEnvelopesVerifyHere) {
  std::string payload = Payload("stdout");
  std::ofstream(dir_ + "/payload") << payload;
  std::string seed = core::HexEncode(key_.seed());
  ASSERT_EQ(RunShell(std::string(kPython) + " '" + script_ + "' sign " + seed + " '" + dir_ +
                "/payload' > '" + dir_ + "/theirs.json'"),
            0);
  core::Result<std::string> text = core::ReadFileCapped(dir_ + "/theirs.json");
  ASSERT_TRUE(text.ok()) << text.message();
  // URL-safe, unpadded base64 from another producer.
  core::Result<VerifiedReceipt> receipt =
      VerifyReceipt(*text, std::vector<core::ed25519::PublicKey>{key_.public_key()});
  ASSERT_TRUE(receipt.ok()) << receipt.message() << "\n" << *text;
  EXPECT_EQ(receipt->statement.subject[0].name, "stdout");
}

}  // namespace
}  // namespace ampoule::receipt
