#include "volent/egress/gate.h"

namespace volent::egress {

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kDenied: return "denied";
    case Outcome::kNotSent: return "not-sent";
    case Outcome::kFailed: return "failed";
    case Outcome::kAnswered: return "answered";
  }
  return "unknown";
}

}  // namespace volent::egress
