#include "volent/model/model_spec.h"

#include "volent/manifest/document.h"

namespace volent::model {

using nlohmann::json;
using manifest::Member;
using manifest::StringAt;

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
