#include "ampoule/run/output_files.h"

#include "ampoule/wasi/mailbox.h"
#include "ampoule/wasm/binary_reader.h"
#include "core/utf8.h"

namespace ampoule::run {

core::Status CheckOutputName(std::string_view name) {
  auto bad = [&](const char* why) {
    return core::Error{"output file name '" + std::string(name.substr(0, 200)) + "' " + why};
  };
  if (name.empty() || name.size() > kMaxOutputNameBytes) return bad("is empty or too long");
  if (!core::IsValidUtf8(name)) {
    return bad("is not valid UTF-8");
  }
  for (char c : name) {
    if (uint8_t(c) < 0x20 || c == 0x7f) return bad("contains a control character");
  }
  size_t start = 0;
  while (start <= name.size()) {
    size_t slash = name.find('/', start);
    if (slash == std::string_view::npos) slash = name.size();
    std::string_view part = name.substr(start, slash - start);
    if (part.empty() || part == "." || part == "..") return bad("has an empty, '.' or '..' part");
    if (part.size() > wasi::kMaxNameBytes) return bad("has a part longer than 255 bytes");
    start = slash + 1;
  }
  return core::Status::Ok();
}

}  // namespace ampoule::run
