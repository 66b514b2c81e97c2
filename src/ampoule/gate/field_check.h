// Does the draft say what the signed output says? Each asserted field's
// value is compared with the value its source (action.h: FieldSource)
// selects in the signed document it names, the run's stdout or an output
// file, parsed as one JSON document, numbers as exact decimal values from
// the document's text (exact_json.h). And does each field come
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

// The signed documents fields may read: "" is stdout, other keys are
// output file names. Each must already be known to be the signed one.
using SignedDocuments = std::map<std::string, std::string_view>;

// Every asserted field that differs from its document, in field-name order.
// A document that is missing or not JSON, or a pointer that selects
// nothing, is a mismatch for each field concerned (signed_value says why).
std::vector<FieldMismatch> CompareFields(const std::map<std::string, AssertedField>& fields,
                                         const SignedDocuments& documents);
// The same with stdout as the only document.
std::vector<FieldMismatch> CompareFields(const std::map<std::string, AssertedField>& fields,
                                         std::string_view output);

// Every way the draft's pointers break the policy's SourceRule for the
// draft's kind, one reason each, in field-name order. A kind the policy does
// not name, or names without `same_record`, has the default rule: all its
// fields from one record (the object their pointers name members of).
std::vector<std::string> CheckSources(const ActionDraft& draft, const Policy& policy);

}  // namespace ampoule::gate
