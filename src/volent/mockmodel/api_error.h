// A refused request, before it is written in one API's error format
// (RenderAnthropicError, RenderOpenAiError). docs/mock-model.md, "Errors".
#pragma once

#include <string>
#include <utility>

namespace volent::mockmodel {

enum class ErrorKind {
  kInvalidRequest,    // 400: malformed JSON, a missing or wrong field
  kAuthentication,    // 401: no key, or not the key the mock was started with
  kNotFound,          // 404: no such path
  kMethodNotAllowed,  // 405: a model path with another method than POST
  kTooLarge,          // 413: the body exceeds 4 MiB
};

struct ApiError {
  ApiError(ErrorKind kind, std::string message, std::string code = "")
      : kind(kind), message(std::move(message)), code(std::move(code)) {}

  ErrorKind kind = ErrorKind::kInvalidRequest;
  std::string message;
  std::string code;  // OpenAI's error.code when not null, e.g. "invalid_api_key"

  int status() const {
    switch (kind) {
      case ErrorKind::kInvalidRequest: return 400;
      case ErrorKind::kAuthentication: return 401;
      case ErrorKind::kNotFound: return 404;
      case ErrorKind::kMethodNotAllowed: return 405;
      case ErrorKind::kTooLarge: return 413;
    }
    return 400;
  }
};

}  // namespace volent::mockmodel
