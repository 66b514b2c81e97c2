// Fuzz target for the TPM quote check a verifier runs off the node
// (volent/attest/quote_verify.h, ak_public.h): every byte of a quote comes
// from the node being checked, so none of it is trusted.
//
// The input is five fields, each a 2-byte big-endian length and its bytes:
// the attest (TPMS_ATTEST), the signature (TPMT_SIGNATURE), the AK public
// area (TPM2B_PUBLIC), the reported PCRs (33 bytes each: index, then the
// 32-byte value; a shorter tail is dropped) and the nonce. A missing field
// is empty.
// What must hold, beyond no crash, hang or sanitizer report:
//   - every problem has a name and a detail;
//   - a quote with no problem has attest bytes that decode to that nonce and
//     those PCR indexes, under an acceptable AK; pinning that AK's own name
//     changes nothing;
//   - an acceptable AK has a 34-byte name and a PEM key.
//
// Seeds: fuzz/corpus/tpm_quote_fuzz (a quote from swtpm that verifies, and
// the same quote with its nonce changed).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "volent/attest/ak_public.h"
#include "volent/attest/quote_verify.h"

namespace {

using namespace volent::attest;

void Check(bool ok) {
  if (!ok) std::abort();
}

// The next field of `in`, which it consumes.
std::string_view Field(std::string_view& in) {
  if (in.size() < 2) {
    in = {};
    return {};
  }
  const size_t n = std::min<size_t>((static_cast<uint8_t>(in[0]) << 8) | static_cast<uint8_t>(in[1]), in.size() - 2);
  const std::string_view out = in.substr(2, n);
  in.remove_prefix(2 + n);
  return out;
}

std::vector<PcrValue> Pcrs(std::string_view bytes) {
  std::vector<PcrValue> out;
  for (; bytes.size() >= 33; bytes.remove_prefix(33)) {
    PcrValue v;
    v.index = static_cast<uint8_t>(bytes[0]);
    for (size_t i = 0; i < 32; ++i) v.sha256[i] = static_cast<uint8_t>(bytes[1 + i]);
    out.push_back(v);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  Quote quote;
  quote.attest = Field(in);
  quote.signature = Field(in);
  quote.ak_public = Field(in);
  quote.pcrs = Pcrs(Field(in));
  const std::string nonce(Field(in));

  const std::vector<Problem> problems = VerifyQuote(quote, nonce);
  for (const Problem& p : problems) Check(ProblemName(p.kind) != "unknown" && !p.detail.empty());

  const auto ak = ParseAkPublic(quote.ak_public);
  if (ak.ok() && ak->acceptable()) {
    Check(ak->name.size() == 34 && ak->pem.rfind("-----BEGIN PUBLIC KEY-----", 0) == 0);
  }
  const auto attest = ParseQuoteAttest(quote.attest);
  if (problems.empty()) {
    Check(attest.ok() && attest->nonce == nonce && ak.ok() && ak->acceptable());
    Check(attest->pcr_indexes.size() == quote.pcrs.size());
    for (size_t i = 0; i < quote.pcrs.size(); ++i) Check(attest->pcr_indexes[i] == quote.pcrs[i].index);
    Check(VerifyQuote(quote, nonce, ak->name).empty());
  }

  std::vector<std::array<uint8_t, 32>> measurements;
  for (const PcrValue& p : quote.pcrs) measurements.push_back(p.sha256);
  (void)ReplayPcr(measurements);
  return 0;
}
