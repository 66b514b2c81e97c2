// The TPM layer against a real TPM 2.0 implementation: each test that needs
// a TPM starts its own swtpm (fresh state, its own seeds, so its own AK and
// EK) on loopback ports and stops it at the end; without swtpm they are
// skipped. Quotes it makes are checked by quote_verify.h, tampered with one
// way at a time, and checked again by tpm2_checkquote (tpm2-tools), an
// implementation that shares nothing with ours but tpm2-tss's marshaling.
#include "volent/attest/tpm.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <tss2/tss2_mu.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "core/hex.h"
#include "core/sha256.h"
#include "volent/attest/ak_public.h"
#include "volent/attest/quote_verify.h"
#include "volent/attest/swtpm_testing.h"

extern char** environ;

namespace volent::attest {
namespace {

using testing::OnPath;
using testing::SwTpm;

using Digest = std::array<uint8_t, 32>;

Digest Sha(std::string_view text) { return core::Sha256(text); }

std::vector<std::string> Names(const std::vector<Problem>& problems) {
  std::vector<std::string> out;
  for (const auto& p : problems) out.emplace_back(ProblemName(p.kind));
  return out;
}

bool Has(const std::vector<Problem>& problems, QuoteProblem kind) {
  for (const auto& p : problems) {
    if (p.kind == kind) return true;
  }
  return false;
}

std::string Describe(const std::vector<Problem>& problems) {
  std::string out;
  for (const auto& p : problems) out += std::string(ProblemName(p.kind)) + ": " + p.detail + "\n";
  return out.empty() ? "(no problem)" : out;
}

// A test with its own swtpm, connected.
class TpmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    swtpm_ = SwTpm::Start(why);
    if (!swtpm_) GTEST_SKIP() << why;
    auto tpm = Tpm::Open(swtpm_->tcti());
    ASSERT_TRUE(tpm.ok()) << tpm.message();
    tpm_ = std::move(*tpm);
  }
  // Another swtpm: another TPM, with other seeds.
  std::unique_ptr<Tpm> OtherTpm() {
    std::string why;
    other_swtpm_ = SwTpm::Start(why);
    EXPECT_TRUE(other_swtpm_) << why;
    if (!other_swtpm_) return nullptr;
    auto tpm = Tpm::Open(other_swtpm_->tcti());
    EXPECT_TRUE(tpm.ok()) << tpm.message();
    return tpm.ok() ? std::move(*tpm) : nullptr;
  }

  // The Tpm goes before the swtpm it talks to.
  std::unique_ptr<SwTpm> swtpm_, other_swtpm_;
  std::unique_ptr<Tpm> tpm_;
};

TEST(TpmOpenTest, NamesTheTctiItTriedAndWhy) {
  auto tpm = Tpm::Open("swtpm:host=127.0.0.1,port=1");
  ASSERT_FALSE(tpm.ok());
  EXPECT_NE(tpm.message().find("TCTI 'swtpm:host=127.0.0.1,port=1'"), std::string::npos) << tpm.message();
  EXPECT_EQ(tpm.kind(), core::ErrorKind::kUnavailable);
  auto unknown = Tpm::Open("no-such-tcti");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("no-such-tcti"), std::string::npos) << unknown.message();
}

TEST_F(TpmTest, ExtendThenReadGivesTheReplayedValue) {
  const std::vector<Digest> events = {Sha("kernel"), Sha("initrd"), Sha("volent.yaml")};
  for (const Digest& e : events) ASSERT_TRUE(tpm_->Extend(23, e).ok());
  ASSERT_TRUE(tpm_->Extend(16, events[0]).ok());
  // More than the 8 a TPM returns at once, out of order, one repeated.
  const std::vector<uint32_t> wanted = {23, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 23};
  auto pcrs = tpm_->ReadPcrs(wanted);
  ASSERT_TRUE(pcrs.ok()) << pcrs.message();
  ASSERT_EQ(pcrs->size(), 12u);
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ((*pcrs)[i], (PcrValue{static_cast<uint32_t>(i), {}}));
  EXPECT_EQ((*pcrs)[10], (PcrValue{16, ReplayPcr(std::span(events).first(1))}));
  EXPECT_EQ((*pcrs)[11], (PcrValue{23, ReplayPcr(events)}));

  EXPECT_FALSE(tpm_->Extend(24, events[0]).ok());
  const std::vector<uint32_t> bad = {24};
  EXPECT_FALSE(tpm_->ReadPcrs(bad).ok());
}

TEST_F(TpmTest, AkIsTheSameEveryTimeAndNamedAsTheTpmNamesIt) {
  auto ak = tpm_->Ak();
  ASSERT_TRUE(ak.ok()) << ak.message();
  tpm_.reset();  // swtpm serves one client at a time
  auto again = Tpm::Open(swtpm_->tcti());
  ASSERT_TRUE(again.ok()) << again.message();
  auto ak2 = (*again)->Ak();
  ASSERT_TRUE(ak2.ok()) << ak2.message();
  EXPECT_EQ(ak->public_area, ak2->public_area);
  EXPECT_EQ(ak->name, ak2->name);

  auto parsed = ParseAkPublic(ak->public_area);
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  EXPECT_TRUE(parsed->acceptable()) << parsed->attribute_fault << parsed->algorithm_fault;
  EXPECT_EQ(parsed->name, ak->name);  // our name is the TPM's (Esys_TR_GetName)
  EXPECT_EQ(parsed->pem, ak->pem);
  EXPECT_EQ(ak->pem.rfind("-----BEGIN PUBLIC KEY-----\n", 0), 0u) << ak->pem;
}

// A fresh TPM with PCRs 16 and 23 extended and one quote of them.
class QuoteTest : public TpmTest {
 protected:
  void SetUp() override {
    TpmTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_TRUE(tpm_->Extend(16, Sha("boot")).ok());
    ASSERT_TRUE(tpm_->Extend(23, Sha("volent")).ok());
    auto quote = tpm_->Quote(kIndexes, nonce_);
    ASSERT_TRUE(quote.ok()) << quote.message();
    quote_ = std::move(*quote);
    auto ak = tpm_->Ak();
    ASSERT_TRUE(ak.ok()) << ak.message();
    ak_ = *ak;
  }

  static constexpr uint32_t kIndexes[] = {23, 16};
  const std::string nonce_ = std::string("verifier's nonce, 32 bytes long", 32);
  Quote quote_;
  AttestationKey ak_;
};

TEST_F(QuoteTest, AGoodQuoteVerifies) {
  EXPECT_TRUE(VerifyQuote(quote_, nonce_).empty()) << Describe(VerifyQuote(quote_, nonce_));
  EXPECT_TRUE(VerifyQuote(quote_, nonce_, ak_.name).empty()) << Describe(VerifyQuote(quote_, nonce_, ak_.name));
  EXPECT_EQ(quote_.ak_public, ak_.public_area);
  const std::vector<uint32_t> wanted(std::begin(kIndexes), std::end(kIndexes));
  auto now = tpm_->ReadPcrs(wanted);
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(quote_.pcrs, *now);  // ascending: 16, then 23
  auto attest = ParseQuoteAttest(quote_.attest);
  ASSERT_TRUE(attest.ok()) << attest.message();
  EXPECT_EQ(attest->nonce, nonce_);
  EXPECT_EQ(attest->pcr_indexes, (std::vector<uint32_t>{16, 23}));
  EXPECT_EQ(attest->qualified_signer, EndorsementQualifiedName(ak_.name));
}

TEST_F(QuoteTest, ADifferentNonceFails) {
  std::string other = nonce_;
  other[31] ^= 1;
  EXPECT_EQ(Names(VerifyQuote(quote_, other)), std::vector<std::string>{"nonce_mismatch"});
  EXPECT_EQ(Names(VerifyQuote(quote_, nonce_.substr(0, 31))), std::vector<std::string>{"nonce_mismatch"});
}

TEST_F(QuoteTest, AnAlteredPcrValueFails) {
  Quote q = quote_;
  q.pcrs[1].sha256[31] ^= 1;
  EXPECT_EQ(Names(VerifyQuote(q, nonce_)), std::vector<std::string>{"pcr_digest_mismatch"});
  q = quote_;
  q.pcrs.pop_back();  // a PCR left out of the report
  EXPECT_EQ(Names(VerifyQuote(q, nonce_)), (std::vector<std::string>{"pcr_selection_mismatch", "pcr_digest_mismatch"}));
  q = quote_;
  std::swap(q.pcrs[0], q.pcrs[1]);  // same values, reported out of order
  EXPECT_TRUE(Has(VerifyQuote(q, nonce_), QuoteProblem::kPcrListInvalid));
}

TEST_F(QuoteTest, AnyAlteredAttestByteFails) {
  for (size_t i = 0; i < quote_.attest.size(); ++i) {
    Quote q = quote_;
    q.attest[i] ^= 0x01;
    EXPECT_TRUE(Has(VerifyQuote(q, nonce_), QuoteProblem::kSignatureInvalid)) << "byte " << i;
  }
}

TEST_F(QuoteTest, ASignatureFromAnotherTpmFails) {
  tpm_.reset();
  auto other = OtherTpm();
  ASSERT_TRUE(other);
  auto theirs = other->Quote(kIndexes, nonce_);
  ASSERT_TRUE(theirs.ok()) << theirs.message();
  Quote q = quote_;
  q.signature = theirs->signature;
  EXPECT_EQ(Names(VerifyQuote(q, nonce_)), std::vector<std::string>{"signature_invalid"});
  // Their whole quote holds on its own, under their AK; not under ours.
  EXPECT_TRUE(VerifyQuote(*theirs, nonce_).empty()) << Describe(VerifyQuote(*theirs, nonce_));
  EXPECT_EQ(Names(VerifyQuote(*theirs, nonce_, ak_.name)), std::vector<std::string>{"ak_not_expected"});
  // Their AK with our attest: signed by a key that is not the signer named inside.
  q = quote_;
  q.ak_public = theirs->ak_public;
  EXPECT_EQ(Names(VerifyQuote(q, nonce_)), (std::vector<std::string>{"signature_invalid", "signer_mismatch"}));
}

// A P-256 key made in software, its public area claiming `attributes`.
struct SoftwareKey {
  explicit SoftwareKey(TPMA_OBJECT attributes) : key(EVP_EC_gen("P-256")) {
    TPM2B_PUBLIC pub{};
    TPMT_PUBLIC& p = pub.publicArea;
    p.type = TPM2_ALG_ECC;
    p.nameAlg = TPM2_ALG_SHA256;
    p.objectAttributes = attributes;
    p.parameters.eccDetail.symmetric.algorithm = TPM2_ALG_NULL;
    p.parameters.eccDetail.scheme.scheme = TPM2_ALG_ECDSA;
    p.parameters.eccDetail.scheme.details.ecdsa.hashAlg = TPM2_ALG_SHA256;
    p.parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
    p.parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
    Coordinate(OSSL_PKEY_PARAM_EC_PUB_X, p.unique.ecc.x);
    Coordinate(OSSL_PKEY_PARAM_EC_PUB_Y, p.unique.ecc.y);
    uint8_t buf[sizeof(pub)];
    size_t n = 0;
    EXPECT_EQ(Tss2_MU_TPM2B_PUBLIC_Marshal(&pub, buf, sizeof(buf), &n), TSS2_RC_SUCCESS);
    public_area.assign(reinterpret_cast<char*>(buf), n);
  }
  ~SoftwareKey() { EVP_PKEY_free(key); }

  void Coordinate(const char* param, TPM2B_ECC_PARAMETER& out) {
    BIGNUM* bn = nullptr;
    EXPECT_EQ(EVP_PKEY_get_bn_param(key, param, &bn), 1);
    out.size = 32;
    BN_bn2binpad(bn, out.buffer, 32);
    BN_free(bn);
  }

  // A TPMT_SIGNATURE over `message`, as a TPM would encode it.
  std::string Sign(const std::string& message) {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    unsigned char der[80];
    size_t len = sizeof(der);
    EXPECT_EQ(EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, key), 1);
    EXPECT_EQ(EVP_DigestSign(ctx, der, &len, reinterpret_cast<const unsigned char*>(message.data()), message.size()),
              1);
    EVP_MD_CTX_free(ctx);
    const unsigned char* p = der;
    ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(len));
    TPMT_SIGNATURE t{};
    t.sigAlg = TPM2_ALG_ECDSA;
    t.signature.ecdsa.hash = TPM2_ALG_SHA256;
    t.signature.ecdsa.signatureR.size = t.signature.ecdsa.signatureS.size = 32;
    BN_bn2binpad(ECDSA_SIG_get0_r(sig), t.signature.ecdsa.signatureR.buffer, 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(sig), t.signature.ecdsa.signatureS.buffer, 32);
    ECDSA_SIG_free(sig);
    uint8_t buf[sizeof(t)];
    size_t n = 0;
    EXPECT_EQ(Tss2_MU_TPMT_SIGNATURE_Marshal(&t, buf, sizeof(buf), &n), TSS2_RC_SUCCESS);
    return std::string(reinterpret_cast<char*>(buf), n);
  }

  EVP_PKEY* key;
  std::string public_area;
};

// The attest bytes with the qualified signer set to `key`'s: what a forger
// with a software key would write.
std::string ForgeSigner(const std::string& attest, const std::string& ak_public) {
  TPMS_ATTEST a{};
  size_t offset = 0;
  EXPECT_EQ(Tss2_MU_TPMS_ATTEST_Unmarshal(reinterpret_cast<const uint8_t*>(attest.data()), attest.size(), &offset, &a),
            TSS2_RC_SUCCESS);
  const std::string qn = EndorsementQualifiedName(ParseAkPublic(ak_public)->name);
  a.qualifiedSigner.size = static_cast<UINT16>(qn.size());
  std::memcpy(a.qualifiedSigner.name, qn.data(), qn.size());
  uint8_t buf[sizeof(a)];
  size_t n = 0;
  EXPECT_EQ(Tss2_MU_TPMS_ATTEST_Marshal(&a, buf, sizeof(buf), &n), TSS2_RC_SUCCESS);
  return std::string(reinterpret_cast<char*>(buf), n);
}

TEST_F(QuoteTest, AKeyThatCouldSignAnythingIsRefused) {
  // Not restricted: such a key signs any bytes, so it proves nothing about
  // what the TPM saw. The signature itself is fine; the key is not.
  SoftwareKey unrestricted(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
                           TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_SIGN_ENCRYPT);
  Quote q = quote_;
  q.ak_public = unrestricted.public_area;
  q.attest = ForgeSigner(quote_.attest, q.ak_public);
  q.signature = unrestricted.Sign(q.attest);
  EXPECT_EQ(Names(VerifyQuote(q, nonce_)), std::vector<std::string>{"ak_not_restricted_signing"});

  // A software key that claims every attribute passes the self-contained
  // check: the attributes are only claimed. Pinning the AK (learned through
  // credential activation) is what stops it.
  SoftwareKey claiming(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
                       TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_SIGN_ENCRYPT);
  q.ak_public = claiming.public_area;
  q.attest = ForgeSigner(quote_.attest, q.ak_public);
  q.signature = claiming.Sign(q.attest);
  EXPECT_TRUE(VerifyQuote(q, nonce_).empty()) << Describe(VerifyQuote(q, nonce_));
  EXPECT_EQ(Names(VerifyQuote(q, nonce_, ak_.name)), std::vector<std::string>{"ak_not_expected"});
}

TEST_F(QuoteTest, TruncatedOrLongerBytesAreNamed) {
  for (size_t n = 0; n < quote_.attest.size(); ++n) {
    Quote q = quote_;
    q.attest.resize(n);
    EXPECT_TRUE(Has(VerifyQuote(q, nonce_), QuoteProblem::kAttestMalformed)) << n;
  }
  for (size_t n = 0; n < quote_.signature.size(); ++n) {
    Quote q = quote_;
    q.signature.resize(n);
    EXPECT_EQ(Names(VerifyQuote(q, nonce_)), std::vector<std::string>{"signature_malformed"}) << n;
  }
  for (size_t n = 0; n < quote_.ak_public.size(); ++n) {
    Quote q = quote_;
    q.ak_public.resize(n);
    EXPECT_EQ(Names(VerifyQuote(q, nonce_)), std::vector<std::string>{"ak_malformed"}) << n;
  }
  Quote q = quote_;
  q.attest += '\0';
  q.signature += '\0';
  q.ak_public += '\0';
  EXPECT_EQ(Names(VerifyQuote(q, nonce_)),
            (std::vector<std::string>{"ak_malformed", "signature_malformed", "attest_malformed"}));
}

TEST_F(QuoteTest, RefusesANonceOrPcrItCannotQuote) {
  auto longer = tpm_->Quote(kIndexes, std::string(kMaxQuoteNonceBytes + 1, 'n'));
  ASSERT_FALSE(longer.ok());
  EXPECT_EQ(longer.kind(), core::ErrorKind::kInvalidArgument);
  EXPECT_NE(longer.message().find("1 to 32 bytes, this one is 33"), std::string::npos) << longer.message();
  EXPECT_FALSE(tpm_->Quote(kIndexes, "").ok());
  const std::vector<uint32_t> none, past = {24};
  EXPECT_FALSE(tpm_->Quote(none, nonce_).ok());
  EXPECT_FALSE(tpm_->Quote(past, nonce_).ok());
}

int RunShell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void Write(const std::string& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST_F(QuoteTest, TpmToolsCheckquoteAgrees) {
  if (!OnPath("tpm2_checkquote")) GTEST_SKIP() << "tpm2-tools is not installed (apt-get install tpm2-tools)";
  const std::string d = swtpm_->dir();
  Write(d + "/ak.pem", ak_.pem);
  Write(d + "/attest.bin", quote_.attest);
  Write(d + "/signature.bin", quote_.signature);
  std::string values;  // tpm2_pcrread's format: the values alone, in selection order
  for (const PcrValue& p : quote_.pcrs) values.append(reinterpret_cast<const char*>(p.sha256.data()), 32);
  Write(d + "/pcrs.bin", values);
  const auto checkquote = [&](const std::string& nonce, const std::string& pcrs) {
    return RunShell("tpm2_checkquote --public=" + d + "/ak.pem --message=" + d + "/attest.bin --signature=" + d +
               "/signature.bin --pcr=" + pcrs + " --pcr-list=sha256:16,23 --hash-algorithm=sha256 --qualification=" +
               core::HexEncode(nonce) + " >" + d + "/checkquote.log 2>&1");
  };
  EXPECT_EQ(checkquote(nonce_, d + "/pcrs.bin"), 0) << "see " << d << "/checkquote.log";
  // It does check: another nonce or another PCR value fails there too.
  EXPECT_NE(checkquote(std::string(32, 'x'), d + "/pcrs.bin"), 0);
  values[0] ^= 1;
  Write(d + "/pcrs-altered.bin", values);
  EXPECT_NE(checkquote(nonce_, d + "/pcrs-altered.bin"), 0);
}

TEST_F(TpmTest, CredentialActivatesOnlyOnTheTpmHoldingTheEkAndAk) {
  auto ek = tpm_->EndorsementKeyPublic();
  ASSERT_TRUE(ek.ok()) << ek.message();
  auto ak = tpm_->Ak();
  ASSERT_TRUE(ak.ok()) << ak.message();
  const std::string secret = "a verifier's one-time secret....";
  auto credential = tpm_->MakeCredential(*ek, ak->name, secret);
  ASSERT_TRUE(credential.ok()) << credential.message();
  auto recovered = tpm_->ActivateCredential(*credential);
  ASSERT_TRUE(recovered.ok()) << recovered.message();
  EXPECT_EQ(*recovered, secret);

  // Made for another key's name: this TPM's EK opens it, but the AK is not
  // the one it names.
  std::string other_name = ak->name;
  other_name.back() ^= 1;
  auto for_other_ak = tpm_->MakeCredential(*ek, other_name, secret);
  ASSERT_TRUE(for_other_ak.ok()) << for_other_ak.message();
  EXPECT_FALSE(tpm_->ActivateCredential(*for_other_ak).ok());

  // Made for this AK under another TPM's EK: only that TPM could open it.
  tpm_.reset();
  auto other = OtherTpm();
  ASSERT_TRUE(other);
  auto other_ek = other->EndorsementKeyPublic();
  ASSERT_TRUE(other_ek.ok()) << other_ek.message();
  EXPECT_NE(*other_ek, *ek);
  auto for_other_ek = other->MakeCredential(*other_ek, ak->name, secret);
  ASSERT_TRUE(for_other_ek.ok()) << for_other_ek.message();
  other.reset();
  auto again = Tpm::Open(swtpm_->tcti());
  ASSERT_TRUE(again.ok()) << again.message();
  EXPECT_FALSE((*again)->ActivateCredential(*for_other_ek).ok());
  auto ok_again = (*again)->ActivateCredential(*credential);
  EXPECT_TRUE(ok_again.ok()) << ok_again.message();
}

// A verifier without a TPM: tpm2-tools makes the credential in software
// (--tcti=none), from the EK's public area and the AK's name alone.
TEST_F(TpmTest, CredentialMadeOffTpmByTpmToolsActivates) {
  if (!OnPath("tpm2_makecredential")) GTEST_SKIP() << "tpm2-tools is not installed (apt-get install tpm2-tools)";
  auto ek = tpm_->EndorsementKeyPublic();
  ASSERT_TRUE(ek.ok()) << ek.message();
  auto ak = tpm_->Ak();
  ASSERT_TRUE(ak.ok()) << ak.message();
  const std::string d = swtpm_->dir(), secret = "from a verifier with no TPM";
  Write(d + "/ek.pub", *ek);
  Write(d + "/secret", secret);
  ASSERT_EQ(RunShell("tpm2_makecredential --tcti=none --encryption-key=" + d + "/ek.pub --secret=" + d +
                     "/secret --name=" + core::HexEncode(ak->name) + " --credential-blob=" + d +
                     "/cred.out >" + d + "/makecredential.log 2>&1"),
            0)
      << "see " << d << "/makecredential.log";
  // tpm2-tools' file: magic 0xbadcc0de, version 1, then the TPM2B_ID_OBJECT
  // and the TPM2B_ENCRYPTED_SECRET as the TPM marshals them.
  std::ifstream in(d + "/cred.out", std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(file.size(), 10u);
  ASSERT_EQ(core::HexEncode(file.substr(0, 8)), "badcc0de00000001");
  const size_t blob = 2 + ((static_cast<uint8_t>(file[8]) << 8) | static_cast<uint8_t>(file[9]));
  ASSERT_LT(8 + blob, file.size());
  auto recovered = tpm_->ActivateCredential(TpmCredential{file.substr(8, blob), file.substr(8 + blob)});
  ASSERT_TRUE(recovered.ok()) << recovered.message();
  EXPECT_EQ(*recovered, secret);
}

TEST_F(TpmTest, EkIsTheTcgDefaultEccEk) {
  if (!OnPath("tpm2_createek")) GTEST_SKIP() << "tpm2-tools is not installed (apt-get install tpm2-tools)";
  auto ek = tpm_->EndorsementKeyPublic();
  ASSERT_TRUE(ek.ok()) << ek.message();
  tpm_.reset();
  const std::string d = swtpm_->dir();
  ASSERT_EQ(RunShell("tpm2_createek --tcti=" + swtpm_->tcti() + " --ek-context=" + d + "/ek.ctx --key-algorithm=ecc" +
                " --public=" + d + "/ek.pub >" + d + "/createek.log 2>&1"),
            0)
      << "see " << d << "/createek.log";
  std::ifstream in(d + "/ek.pub", std::ios::binary);
  const std::string theirs((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(core::HexEncode(theirs), core::HexEncode(*ek));
}

}  // namespace
}  // namespace volent::attest
