#include "ampoule/receipt/pae.h"

namespace ampoule::receipt {

std::string Pae(std::string_view payload_type, std::string_view payload) {
  const std::string type_len = std::to_string(payload_type.size());
  const std::string body_len = std::to_string(payload.size());
  std::string out;
  out.reserve(10 + type_len.size() + payload_type.size() + body_len.size() + payload.size());
  out.append("DSSEv1 ").append(type_len).append(" ").append(payload_type);
  out.append(" ").append(body_len).append(" ").append(payload);
  return out;
}

}  // namespace ampoule::receipt
