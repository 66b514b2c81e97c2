#include "ampoule/gate/outbox.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <optional>

#include "core/errno_text.h"
#include "core/file_read.h"
#include "core/file_write.h"
#include "core/hex.h"
#include "core/json.h"
#include "core/json_strict.h"
#include "core/sha256.h"

namespace ampoule::gate {
namespace {

// How many hex digits of the log's identity and of the key's digest a
// message's name carries: enough that names from different logs or keys
// do not meet by chance. The names are not what proves a message its own;
// its bytes are (DeliverToOutbox).
constexpr size_t kNameDigits = 16;
// A marker is a few hundred bytes; anything much larger is not one.
constexpr size_t kMaxMarkerBytes = 64 * 1024;

core::Error Errno(const std::string& doing, const std::string& path) {
  return core::Errno("outbox: cannot " + doing + " " + path);
}

// Creates dir/name holding `bytes`, never replacing a file already there:
// the bytes go to a hidden temporary file, are synced, and the file is
// linked to its name, which fails if the name is taken (core/file_write.h).
// So a reader never sees a partial file under the name, and of several
// writers exactly one wins. Returns false if the name was taken.
core::Result<bool> CreateExclusive(const std::string& dir, const std::string& name, const std::string& bytes) {
  core::Status created = core::WriteFileAtomically(dir + "/" + name, bytes, core::WriteOptions{.create_only = true});
  if (created.ok()) return true;
  if (created.kind() == core::ErrorKind::kConflict) return false;
  return core::Error{"outbox: " + created.message()};
}

// The bytes of the regular file at `path`, at most `limit` of them
// (`*over_limit` set when there are more), or nullopt if there is no such
// file. A symbolic link is an error: what it points to can change after it
// was checked. O_NONBLOCK so that a FIFO planted there cannot hang the gate.
core::Result<std::optional<std::string>> ReadExisting(const std::string& path, size_t limit, bool* over_limit) {
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return std::optional<std::string>();
  if (fd < 0 && errno == ELOOP) return core::Error{"outbox: " + path + " is a symbolic link, not a file ampoule wrote"};
  if (fd < 0) return Errno("open", path);
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return core::Error{"outbox: " + path + " is not a regular file, so not one ampoule wrote"};
  }
  core::Result<std::string> bytes = core::ReadFdCapped(fd, path, limit, over_limit);
  close(fd);
  if (!bytes.ok() && over_limit && *over_limit) return std::optional<std::string>(std::string());
  if (!bytes.ok()) return bytes.error();
  return std::optional<std::string>(std::move(*bytes));
}

std::string LogPath(const DecisionLog& log) {
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(log.path(), ec);
  return ec ? log.path() : absolute.lexically_normal().string();
}

// The marker's content: the identity is what counts; the log's path is
// there for the person reading an error, and may since have changed.
std::string MarkerText(const DecisionLog& log) {
  nlohmann::json marker = {
      {"ampoule_outbox", 1},
      {"decision_log", log.log_id()},
      {"decision_log_path", LogPath(log)},
  };
  return core::DumpJson(marker, 2) + "\n";
}

// Checks that the marker `text`, read from `marker_path` in `dir`, names `log`.
core::Status CheckMarker(const std::string& dir, const std::string& marker_path, const std::string& text,
                   const DecisionLog& log) {
  core::Result<nlohmann::json> marker = core::ParseJsonStrict(text, marker_path);
  const nlohmann::json* id = nullptr;
  if (marker.ok() && marker->is_object() && marker->value("ampoule_outbox", nlohmann::json()) == 1 &&
      marker->contains("decision_log")) {
    id = &(*marker)["decision_log"];
  }
  if (id == nullptr || !id->is_string() || !core::IsLowerHex(id->get<std::string>(), kLogIdBytes)) {
    return core::Error{"outbox " + dir + ": its marker " + marker_path +
                 " does not name a decision log (not written by ampoule, or altered), so the gate cannot tell "
                 "whose messages the outbox holds. Give this decision log another outbox (--outbox or the "
                 "policy's outbox)"};
  }
  const std::string owner = id->get<std::string>();
  if (owner == log.log_id()) return core::Status::Ok();
  const nlohmann::json path = marker->value("decision_log_path", nlohmann::json());
  const std::string owner_path = path.is_string() ? path.get<std::string>() : "";
  const std::string this_path = LogPath(log);
  std::string message = "outbox " + dir + " belongs to another decision log (identity " + owner +
                        (owner_path.empty() ? "" : ", at " + owner_path) + "), not to this one (identity " +
                        log.log_id() + ", at " + this_path + ").";
  if (owner_path == this_path) {
    message += " The log at " + this_path +
               " was replaced (deleted, rotated or restored from elsewhere) since it claimed the outbox: the sends "
               "in the outbox are not in this log.";
  }
  message += " An outbox takes messages from one decision log only. Use the log the outbox belongs to "
             "(--db or the policy's decision_log), or give this log an outbox of its own (--outbox or the "
             "policy's outbox)";
  return core::Error{message};
}

// An outbox without a marker may be claimed only if it holds nothing but
// dot files (temporaries): messages already there, from an older ampoule or
// anything else, are not this log's to vouch for.
core::Status CheckUnclaimed(const std::string& dir) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.empty() && name[0] == '.') continue;
    return core::Error{"outbox " + dir + " holds files (" + name + ") but no " + kOutboxMarker +
                 " naming the decision log that delivers there (an outbox from an older ampoule, or a folder "
                 "something else writes to): the gate will not guess whether they are this log's sends. Give "
                 "this decision log a new, empty outbox (--outbox or the policy's outbox), or move the files "
                 "out of " + dir};
  }
  if (ec) return core::Error{"outbox: cannot list the folder " + dir + ": " + ec.message()};
  return core::Status::Ok();
}

}  // namespace

core::Status PrepareOutbox(const std::string& dir, const DecisionLog& log) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return core::Error{"outbox: cannot create the folder " + dir + ": " + ec.message()};
  if (access(dir.c_str(), W_OK | X_OK) != 0) return Errno("write to the folder", dir);
  const std::string marker_path = dir + "/" + kOutboxMarker;
  core::Result<std::optional<std::string>> marker = ReadExisting(marker_path, kMaxMarkerBytes, nullptr);
  if (!marker.ok()) return marker.error();
  if (*marker) return CheckMarker(dir, marker_path, **marker, log);

  if (core::Status s = CheckUnclaimed(dir); !s.ok()) {
    // Another gate may have claimed the folder, and delivered into it,
    // since the marker was looked for: then the marker decides.
    marker = ReadExisting(marker_path, kMaxMarkerBytes, nullptr);
    if (marker.ok() && *marker) return CheckMarker(dir, marker_path, **marker, log);
    return s;
  }
  core::Result<bool> created = CreateExclusive(dir, kOutboxMarker, MarkerText(log));
  if (!created.ok()) return created.error();
  if (!*created) {
    // Another gate claimed it first: it may have been this log's.
    marker = ReadExisting(marker_path, kMaxMarkerBytes, nullptr);
    if (!marker.ok()) return marker.error();
    if (!*marker) return core::Error{"outbox " + dir + ": its marker " + marker_path + " vanished while it was read"};
    return CheckMarker(dir, marker_path, **marker, log);
  }
  return core::Status::Ok();
}

std::string OutboxFileName(const std::string& log_id, const DecisionRow& send) {
  return "send-" + log_id.substr(0, kNameDigits) + "-" + std::to_string(send.id) + "-" +
         core::Sha256Hex(send.idempotency_key).substr(0, kNameDigits) + ".json";
}

std::string OutboxMessage(const std::string& log_id, const DecisionRow& send) {
  nlohmann::json message = {
      {"decision_log", log_id},
      {"decision_id", send.id},
      {"kind", send.kind},
      {"idempotency_key", send.idempotency_key},
      {"fields", send.fields},
      {"receipt_sha256", send.receipt_sha256},
      {"decided_at", send.decided_at},
  };
  return core::DumpJson(message, 2) + "\n";
}

core::Result<std::string> DeliverToOutbox(const DecisionLog& log, const DecisionRow& send) {
  const std::string dir = send.outbox;
  if (core::Status s = PrepareOutbox(dir, log); !s.ok()) return s.error();
  const std::string name = OutboxFileName(log.log_id(), send);
  const std::string final_path = dir + "/" + name;
  const std::string message = OutboxMessage(log.log_id(), send);

  core::Result<bool> created = CreateExclusive(dir, name, message);
  if (!created.ok()) return created.error();
  if (!*created) {
    // The name is taken. It is this send's delivery only if it is this
    // send's message, byte for byte (a delivery cut short before the log
    // marked it, or another process finishing it); whatever else is there,
    // saying "delivered" would report a send that is in no file.
    const std::string what_to_do =
        ". The send is not delivered; check what the file is and move it out of the outbox, and the next "
        "gate command delivers the send";
    bool over_limit = false;
    core::Result<std::optional<std::string>> existing = ReadExisting(final_path, message.size(), &over_limit);
    if (!existing.ok()) return core::Error{existing.message() + what_to_do};
    if (!*existing || over_limit || **existing != message) {
      return core::Error{"outbox: " + final_path + " already exists but is not the message of send #" +
                   std::to_string(send.id) + " (" + send.idempotency_key + ") of decision log " + log.log_id() +
                   ": something else wrote it" + what_to_do};
    }
    // A delivery cut short may not have synced the folder.
    if (core::Status s = core::SyncFolder(dir); !s.ok()) return s.error();
  }
  return final_path;
}

}  // namespace ampoule::gate
