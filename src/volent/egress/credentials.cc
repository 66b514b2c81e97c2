// Loading the egress gate's credentials (credentials.h).
#include "volent/egress/credentials.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <strings.h>

#include "core/file_read.h"
#include "volent/egress/headers.h"

namespace volent::egress {
namespace {

std::string Octal(mode_t mode) {
  char buf[8];
  snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// The file's bytes, or why they are not to be used. Opened once; the mode
// checked is that of the very file read (fstat of the descriptor).
core::Result<std::string> ReadSecretFile(const std::string& path) {
  core::Result<int> fd = core::OpenRegularFile(path, kMaxCredentialBytes, "the credential file");
  if (!fd) return fd.error();
  struct stat st {};
  if (fstat(*fd, &st) != 0) {
    close(*fd);
    return core::Error{"cannot stat the credential file " + path};
  }
  if (st.st_mode & (S_IROTH | S_IWOTH | S_IWGRP)) {
    close(*fd);
    return core::Error{"the credential file " + path + " may be read or written by other users (mode " +
                          Octal(st.st_mode) + "): run chmod 600 " + path};
  }
  core::ReadRules regular_only;
  regular_only.from = core::PathFrom::kUntrusted;
  core::Result<std::string> text =
      core::ReadFdCapped(*fd, path, kMaxCredentialBytes, nullptr, regular_only);
  close(*fd);
  return text;
}

// "" when `secret` may be written into a header; else why not. Never says
// where the offending byte is or what it is: that would tell part of it.
std::string CheckSecret(const std::string& secret) {
  if (secret.empty()) return "is empty: write the secret into it";
  if (secret.size() < kMinCredentialBytes) {
    return "is shorter than " + std::to_string(kMinCredentialBytes) + " bytes: not a secret worth the name";
  }
  for (unsigned char c : secret) {
    if (c < 0x20 || c > 0x7e) {
      return "holds a line break, a control character or a byte that is not ASCII (a header may not carry it; "
             "CR or LF would write a header of its own): it must hold the secret alone, on one line";
    }
  }
  if (secret.front() == ' ' || secret.back() == ' ') return "starts or ends with a space (HTTP would drop it)";
  return "";
}

// "" when the gate may write `header`; else why not.
std::string CheckHeader(const std::string& header) {
  if (!IsToken(header)) return "is not a header name (letters, digits and !#$%&'*+-.^_`|~)";
  if (IsDroppedHeader(header)) return "is a header the egress gate writes or drops itself";
  if (strcasecmp(header.c_str(), "Idempotency-Key") == 0) return "is the node's to set (each tool request's key)";
  return "";
}

}  // namespace

core::Result<Credentials> LoadCredentials(const std::vector<manifest::EgressCredential>& specs,
                                             const EnvReader& env) {
  Credentials out;
  std::string problems;
  auto problem = [&problems](const std::string& text) { problems += (problems.empty() ? "" : "\n") + text; };
  for (const manifest::EgressCredential& spec : specs) {
    const std::string what = "credential " + spec.name;
    if (std::string why = CheckHeader(spec.header); !why.empty()) {
      problem(what + ": the header \"" + spec.header + "\" " + why);
      continue;
    }
    bool printable = true;
    for (unsigned char c : spec.prefix) printable = printable && c >= 0x20 && c <= 0x7e;
    if (!printable) {
      problem(what + ": the prefix holds a control character or a byte that is not ASCII");
      continue;
    }
    std::string secret;
    std::string where;
    if (!spec.value_file.empty() && spec.value_env.empty()) {
      where = "the file " + spec.value_file;
      core::Result<std::string> text = ReadSecretFile(spec.value_file);
      if (!text) {
        problem(what + ": " + text.message());
        continue;
      }
      secret = std::move(*text);
      // One line break an editor or `echo` adds; a second is refused below.
      if (!secret.empty() && secret.back() == '\n') secret.pop_back();
      if (!secret.empty() && secret.back() == '\r') secret.pop_back();
    } else if (spec.value_file.empty() && !spec.value_env.empty()) {
      where = "the environment variable " + spec.value_env;
      const char* value = env ? env(spec.value_env.c_str()) : std::getenv(spec.value_env.c_str());
      if (value == nullptr) {
        problem(what + ": " + where + " is not set in the node's environment");
        continue;
      }
      secret = value;
    } else {
      problem(what + ": name exactly one of value_file and value_env");
      continue;
    }
    if (std::string why = CheckSecret(secret); !why.empty()) {
      problem(what + ": the value in " + where + " " + why);
      continue;
    }
    HeaderCredential credential{spec.name, spec.header, spec.prefix + secret, secret};
    out.emplace(spec.name, std::move(credential));
  }
  if (!problems.empty()) return core::Error{problems, core::ErrorKind::kInvalidArgument};
  return out;
}

std::string RedactedMark(std::string_view name) { return "[credential " + std::string(name) + "]"; }

size_t Redact(std::string& text, std::string_view secret, std::string_view mark) {
  if (secret.empty()) return 0;
  size_t count = 0;
  std::string out;
  size_t from = 0;
  for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, from)) {
    out.append(text, from, at - from);
    out.append(mark);
    from = at + secret.size();
    ++count;
  }
  if (count == 0) return 0;
  out.append(text, from, std::string::npos);
  text = std::move(out);
  return count;
}

}  // namespace volent::egress
