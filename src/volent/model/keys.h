// The API keys of the model providers (docs/models.md, "Keys"): read once
// at node start from the files named in volent.yaml's model_keys, each
// bound to the egress capability it may be sent under.
//
// File rules: the whole file is the key, trailing whitespace (the newline an
// editor or `echo` adds) stripped; an empty key, or one with a line break or
// control character inside, is an error. A file that cannot be read is an
// error naming the file and the capability, never the key. A file any user
// may read (mode o+r) is a warning: the key is a secret.
//
// Thread-safe: a loaded ModelKeys is read-only.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "volent/manifest/manifest.h"

namespace volent::model {

class ModelKeys {
 public:
  ModelKeys() = default;
  explicit ModelKeys(std::map<std::string, std::string> by_capability) : by_capability_(std::move(by_capability)) {}
  // The key for `capability`, or nullptr when none is configured.
  const std::string* Find(const std::string& capability) const;
  size_t size() const { return by_capability_.size(); }

 private:
  std::map<std::string, std::string> by_capability_;
};

struct LoadedKeys {
  ModelKeys keys;                     // the keys that could be read
  std::vector<std::string> errors;    // the node should not start while there are any
  std::vector<std::string> warnings;  // printed, not fatal
  bool ok() const { return errors.empty(); }
};

// Reads every file of `files` (NodeConfig::model_keys, paths resolved).
LoadedKeys LoadModelKeys(const std::vector<manifest::ModelKeyFile>& files);

}  // namespace volent::model
