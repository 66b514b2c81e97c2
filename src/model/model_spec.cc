#include "model/model_spec.h"

namespace volent::model {
namespace {

using nlohmann::json;

const json* Member(const json* v, const char* key) {
  if (v == nullptr || !v->is_object()) return nullptr;
  auto it = v->find(key);
  return it == v->end() ? nullptr : &*it;
}

std::string StringAt(const json* v, const char* key) {
  const json* m = Member(v, key);
  return m && m->is_string() ? m->get<std::string>() : "";
}

}  // namespace

ModelSpec ReadModelSpec(const json& manifest) {
  const json* model = Member(Member(&manifest, "spec"), "model");
  ModelSpec spec;
  spec.provider = StringAt(model, "provider");
  spec.name = StringAt(model, "name");
  spec.endpoint = StringAt(model, "endpoint");
  spec.capability = StringAt(model, "capability");
  if (const json* max = Member(Member(model, "budget"), "max_tokens_per_call"); max && max->is_number_integer()) {
    spec.max_tokens_per_call = max->get<int>();
  }
  return spec;
}

}  // namespace volent::model
