#include "volent/init/cmdline.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

namespace volent::init {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n'; }

// The next word of `s` from `*pos`, quotes removed; empty at the end.
std::string NextWord(std::string_view s, size_t* pos) {
  while (*pos < s.size() && IsSpace(s[*pos])) ++*pos;
  std::string word;
  bool quoted = false;
  for (; *pos < s.size(); ++*pos) {
    char c = s[*pos];
    if (c == '"') {
      quoted = !quoted;
    } else if (IsSpace(c) && !quoted) {
      break;
    } else {
      word.push_back(c);
    }
  }
  return word;
}

}  // namespace

ampoule::Result<BootOptions> ParseCmdline(std::string_view cmdline) {
  constexpr std::string_view kTest = "volent.test=";
  BootOptions options;
  size_t pos = 0;
  for (std::string word = NextWord(cmdline, &pos); !word.empty(); word = NextWord(cmdline, &pos)) {
    if (word.rfind(kTest, 0) != 0) continue;
    std::string_view value = std::string_view(word).substr(kTest.size());
    if (value == "heartbeat") {
      options.test = TestMode::kHeartbeat;
    } else {
      return ampoule::Error{"unknown volent.test=" + std::string(value) + " on the kernel command line (known: heartbeat)",
                            ampoule::ErrorKind::kInvalidArgument};
    }
  }
  return options;
}

ampoule::Result<std::string> ReadCmdline() {
  int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ampoule::Error{std::string("open /proc/cmdline: ") + strerror(errno)};
  std::string text(kMaxCmdline, '\0');
  size_t used = 0;
  while (used < text.size()) {
    ssize_t n = read(fd, text.data() + used, text.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return ampoule::Error{std::string("read /proc/cmdline: ") + strerror(err)};
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  close(fd);
  text.resize(used);
  return text;
}

}  // namespace volent::init
