// Fuzz target for the model APIs' formats, both sides: what the node reads
// from a provider (src/volent/model: answers and error bodies of the Anthropic
// Messages and OpenAI Chat Completions APIs) and what the mock model reads
// from a client (src/volent/mockmodel: requests and scripts), each answered as the
// mock would.
//
// The first byte picks the reader; the rest is the body. What must hold,
// beyond no crash, hang or sanitizer report: a parsed answer or request is
// either a value or an error with a message, and what the mock renders from
// an accepted request is JSON.
//
// Seeds: fuzz/corpus/model_formats_fuzz (one of each, good and bad).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "volent/mockmodel/anthropic_format.h"
#include "volent/mockmodel/openai_format.h"
#include "volent/mockmodel/plan.h"
#include "volent/model/anthropic.h"
#include "volent/model/openai.h"

namespace {

using namespace volent;

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckParsed(const core::Result<model::Answer>& parsed) { Check(parsed.ok() || !parsed.message().empty()); }

void CheckJson(const std::string& text) { Check(!nlohmann::json::parse(text, nullptr, false).is_discarded()); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 6) {
    case 0:
      CheckParsed(model::ParseAnthropicAnswer(body));
      break;
    case 1:
      CheckParsed(model::ParseOpenAiAnswer(body));
      break;
    case 2:
      (void)model::AnthropicErrorMessage(body);
      (void)model::OpenAiErrorMessage(body);
      break;
    case 3: {
      auto request = mockmodel::ParseAnthropicRequest(body);
      Check(request.ok() || !request.message().empty());
      if (request.ok()) {
        CheckJson(mockmodel::RenderAnthropicAnswer(mockmodel::DefaultPlan(*request), *request, "msg_fuzz"));
      }
      break;
    }
    case 4: {
      auto request = mockmodel::ParseOpenAiRequest(body);
      Check(request.ok() || !request.message().empty());
      if (request.ok()) {
        CheckJson(mockmodel::RenderOpenAiAnswer(mockmodel::DefaultPlan(*request), *request, "chatcmpl-fuzz", 0));
      }
      break;
    }
    case 5: {
      auto script = mockmodel::ParseScript(body);
      Check(script.ok() || !script.message().empty());
      break;
    }
  }
  return 0;
}
