// Does the draft say what the signed output says? Each asserted field's
// value is compared, as JSON, with the value its JSON Pointer selects in the
// output (the run's stdout parsed as one JSON document).
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

#include "gate/action.h"
#include "gate/decision.h"

namespace ampoule::gate {

// Every asserted field that differs from the output, in field-name order.
// An output that is not JSON, or a pointer that selects nothing, is a
// mismatch for each field concerned (signed_value says why).
std::vector<FieldMismatch> CompareFields(const std::map<std::string, AssertedField>& fields,
                                         std::string_view output);

}  // namespace ampoule::gate
