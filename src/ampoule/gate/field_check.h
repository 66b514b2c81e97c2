// Does the draft say what the signed output says? Each asserted field's
// value is compared with the value its JSON Pointer selects in the output
// (the run's stdout parsed as one JSON document), numbers as exact decimal
// values from the output's text (exact_json.h). And does each field come
// from where the policy says fields of its kind must come from?
//
// The output given here must already be known to be the signed one (its
// digest checked against the receipt); this only compares.
//
// Thread-safe: no state.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ampoule/gate/action.h"
#include "ampoule/gate/decision.h"
#include "ampoule/gate/policy.h"

namespace ampoule::gate {

// Every asserted field that differs from the output, in field-name order.
// An output that is not JSON, or a pointer that selects nothing, is a
// mismatch for each field concerned (signed_value says why).
std::vector<FieldMismatch> CompareFields(const std::map<std::string, AssertedField>& fields,
                                         std::string_view output);

// Every way the draft's pointers break the policy's SourceRule for the
// draft's kind, one reason each, in field-name order; none when the policy
// has no rule for the kind.
std::vector<std::string> CheckSources(const ActionDraft& draft, const Policy& policy);

}  // namespace ampoule::gate
