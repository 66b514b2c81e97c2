// Approvals: tool calls of a run that wait for a person's decision, listed,
// read, approved and denied (docs/control-api.md, "Runs and approvals").
// A decision is final: a second one is a 409 that says what the first was.
// Who decided is the authenticated principal, never a name the caller
// writes (a body with "by" is refused); a decision may carry the approver's
// own signature over the call's digest and its decider
// (approval_signature.h): it must when the credential has an approval key,
// and may only be made by that key.
#include <variant>

#include "core/rfc3339.h"
#include "volent/access/approval_signature.h"
#include "volent/control/api.h"
#include "volent/control/json_api.h"

namespace volent::control {
namespace {

using nlohmann::json;

constexpr size_t kMaxApprovalIdLength = 20;  // digits of the largest uint64
// In bytes of UTF-8, as the runs count them (so the 422 here is the whole
// check): 1,000 characters of ASCII.
constexpr size_t kMaxReasonLength = 1000;

// Approval ids are decimal (agent::ApprovalView::id).
bool IsValidApprovalId(std::string_view id) {
  if (id.empty() || id.size() > kMaxApprovalIdLength) return false;
  for (char c : id) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

constexpr char kApprovalIdRule[] = "an approval id is a decimal number (1 to 20 digits)";

Problem NoApprovals(const Request& request) {
  return Unavailable("approvals are not available on this node now (its agent loop is not running)",
                     request.path);
}

std::string State(const agent::ApprovalView& a) { return a.decision.empty() ? "pending" : a.decision; }

json ApprovalJson(const agent::ApprovalView& a) {
  auto or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  return {{"id", a.id},
          {"agent", a.agent},
          {"run", a.run},
          {"step", a.step},
          {"tool", a.tool},
          {"arguments", a.arguments},
          {"requested_at", TimeOrNull(a.requested_ms)},
          {"state", State(a)},
          {"decided_by", or_null(a.by)},
          {"decided_by_identity", a.identity},
          {"reason", or_null(a.reason)},
          {"decided_at", TimeOrNull(a.decided_ms)},
          {"call_digest", a.call_digest},
          {"signature", a.signature}};
}

// True when `text` has no control character (C0, DEL, C1): it is written
// into the journal and shown to people as one line.
bool IsPrintable(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7F) return false;
    // U+0080..U+009F (C1 controls) are 0xC2 0x80..0x9F in UTF-8.
    if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9F) return false;
  }
  return true;
}

struct Decision {
  std::string reason;
  json signature;  // null: none
};

// The decision of `body`, or 422 invalid-body with every field error.
std::variant<Decision, Problem> ReadDecision(const json& body, const std::string& instance) {
  std::vector<FieldError> errors;
  for (const auto& [member, value] : body.items()) {
    if (member == "by") {
      errors.push_back({"/by", 0, 0,
                        "not accepted: the node records who decides from the request's credential, not from the "
                        "body"});
    } else if (member != "reason" && member != "signature") {
      errors.push_back({PointerTo(member), 0, 0, "unknown member"});
    }
  }
  Decision d;
  if (auto reason = body.find("reason"); reason != body.end()) {
    const std::string* text = reason->is_string() ? &reason->get_ref<const std::string&>() : nullptr;
    if (!text || text->size() > kMaxReasonLength || !IsPrintable(*text)) {
      errors.push_back({"/reason", 0, 0,
                        "must be a string of at most 1000 bytes (UTF-8) with no control characters"});
    } else {
      d.reason = *text;
    }
  }
  if (auto signature = body.find("signature"); signature != body.end()) {
    if (!signature->is_object()) {
      errors.push_back({"/signature", 0, 0, "must be an object: scheme, public_key, sig (volent approve makes it)"});
    } else {
      d.signature = *signature;
    }
  }
  if (!errors.empty()) return InvalidBody(std::move(errors), instance);
  return d;
}

Response List(const ApiContext& ctx, const Request& request) {
  if (!ctx.runs) return ProblemResponse(NoApprovals(request));
  std::string state = QueryParam(request.query, "state").value_or("pending");
  if (state != "pending" && state != "all") {
    return ProblemResponse(MakeProblem(400, "state must be pending or all", request.path));
  }
  json approvals = json::array();
  for (const auto& a : ctx.runs->ListApprovals(state == "pending")) approvals.push_back(ApprovalJson(a));
  return JsonResponse(200, {{"approvals", std::move(approvals)}});
}

Response Get(const ApiContext& ctx, const Request& request, const PathParams& params) {
  if (!ctx.runs) return ProblemResponse(NoApprovals(request));
  const std::string& id = params.find("id")->second;
  if (!IsValidApprovalId(id)) return ProblemResponse(MakeProblem(400, kApprovalIdRule, request.path));
  auto approval = ctx.runs->GetApproval(id);
  if (!approval.ok()) return ProblemResponse(RefusalProblem(approval.error(), request.path));
  return JsonResponse(200, ApprovalJson(*approval));
}

// The 409 for an approval decided before: what was decided, by whom, when.
Problem AlreadyDecided(const ApiContext& ctx, const std::string& id, const std::string& message,
                       const Request& request) {
  auto approval = ctx.runs->GetApproval(id);
  if (!approval.ok() || approval->decision.empty()) return Conflict(message, request.path);
  const agent::ApprovalView& a = *approval;
  std::string detail = "approval " + id + " was already " + a.decision;
  if (!a.by.empty()) detail += " by " + a.by;
  if (a.decided_ms != 0) detail += " at " + core::Rfc3339Millis(a.decided_ms);
  detail += "; a decision is final";
  return Conflict(std::move(detail), request.path);
}

Response Decide(const ApiContext& ctx, const Request& request, const PathParams& params, bool approve) {
  if (!ctx.runs) return ProblemResponse(NoApprovals(request));
  const std::string& id = params.find("id")->second;
  if (!IsValidApprovalId(id)) return ProblemResponse(MakeProblem(400, kApprovalIdRule, request.path));
  auto parsed = ParseJsonObject(request.body, request.path);
  if (auto* problem = std::get_if<Problem>(&parsed)) return ProblemResponse(*problem);
  auto decision = ReadDecision(std::get<json>(parsed), request.path);
  if (auto* problem = std::get_if<Problem>(&decision)) return ProblemResponse(*problem);
  const Decision& d = std::get<Decision>(decision);
  const access::Principal& who = request.principal;
  agent::Decider decider;
  decider.by = who.Describe();
  decider.identity = who.ToJson();
  if (!d.signature.is_null() || !who.approval_key.empty()) {
    if (d.signature.is_null()) {
      return ProblemResponse(InvalidBody(
          {{"/signature", 0, 0,
            "required: this credential has an approval key, so its decisions must be signed (volent approve)"}},
          request.path));
    }
    // A signature speaks for a credential only when made by the key that
    // credential registered: any other key (someone else's registered one
    // included) would let one holder's signature vouch for another's
    // decision.
    if (who.approval_key.empty()) {
      return ProblemResponse(InvalidBody(
          {{"/signature", 0, 0,
            "this credential has no registered approval key, so no signature can be tied to it: decide unsigned, "
            "or ask an admin for a token made with your approval_key (POST /v1/credentials)"}},
          request.path));
    }
    auto approval = ctx.runs->GetApproval(id);
    if (!approval.ok()) return ProblemResponse(RefusalProblem(approval.error(), request.path));
    auto checked =
        access::CheckApprovalSignature(d.signature, approve, approval->call_digest, access::DeciderOf(who), who.approval_key);
    if (!checked.ok()) {
      return ProblemResponse(InvalidBody({{"/signature", 0, 0, checked.message()}}, request.path));
    }
    decider.signature = d.signature;
    decider.signature["call_digest"] = approval->call_digest;
  }
  auto decided = ctx.runs->Decide(id, approve, decider, d.reason);
  if (!decided.ok() && decided.kind() == core::ErrorKind::kConflict) {
    return ProblemResponse(AlreadyDecided(ctx, id, decided.message(), request));
  }
  if (!decided.ok()) return ProblemResponse(RefusalProblem(decided.error(), request.path));
  return JsonResponse(200, ApprovalJson(*decided));
}

json NullableString() { return {{"type", {"string", "null"}}}; }

json ApprovalSchema() {
  json time = TimeOrNullSchema();
  return {{"type", "object"},
          {"required",
           {"id", "agent", "run", "step", "tool", "arguments", "requested_at", "state", "decided_by",
            "decided_by_identity", "reason", "decided_at", "call_digest", "signature"}},
          {"properties",
           {{"id", {{"type", "string"}, {"pattern", "^[0-9]{1,20}$"}}},
            {"agent", {{"type", "string"}}},
            {"run", {{"type", "string"}}},
            {"step", {{"type", "integer"}, {"minimum", 0}}},
            {"tool", {{"type", "string"}}},
            {"arguments", {{"description", "The tool call's arguments, as the model gave them"}}},
            {"requested_at", time},
            {"state", {{"enum", {"pending", "approved", "denied"}}}},
            {"decided_by", NullableString()},
            {"decided_by_identity",
             {{"type", {"object", "null"}},
              {"description", "Who decided, as the node authenticated them: kind (token, certificate, development), "
                              "token_id and name, or subject and fingerprint; roles"}}},
            {"reason", NullableString()},
            {"decided_at", time},
            {"call_digest",
             {{"type", "string"},
              {"description", "sha256: the hash of the call's approval-requested journal entry; what a signed decision "
                              "signs"}}},
            {"signature",
             {{"type", {"object", "null"}},
              {"description", "The approver's Ed25519 signature over the decision, call_digest and decider, or "
                              "null"}}}}}};
}

json DecisionSchema() {
  return {{"type", "object"},
          {"additionalProperties", false},
          {"properties",
           {{"reason",
             {{"type", "string"},
              {"maxLength", 1000},
              {"description", "Why, for the record: at most 1000 bytes of UTF-8, no control characters"}}},
            {"signature",
             {{"type", "object"},
              {"additionalProperties", false},
              {"required", {"scheme", "statement", "decider", "public_key", "sig"}},
              {"properties",
               {{"scheme", {{"const", "ed25519"}}},
                {"statement", {{"const", "volent-approval/v2"}}},
                {"decider",
                 {{"type", "string"},
                  {"description", "The deciding credential: token:<id> (the token's public id) or "
                                  "certificate:sha256:<hex>"}}},
                {"public_key", {{"type", "string"}, {"description", "base64 of the 32-byte Ed25519 public key"}}},
                {"sig", {{"type", "string"}, {"description", "base64 of the 64-byte signature"}}},
                {"call_digest", {{"type", "string"}}}}},
              {"description", "The approver's own signature over \"volent-approval/v2\\nkind: tool-call-decision\\n"
                              "decision: \" DECISION \"\\ncall_digest: \" call_digest \"\\ndecider: \" decider "
                              "\"\\n\" (volent approve makes it), by the credential's registered approval key: "
                              "required when the credential has one, refused when it has none"}}}}}};
}

ParameterDoc ApprovalId() {
  return {"id", "path", "The approval's id", {{"type", "string"}, {"pattern", "^[0-9]{1,20}$"}}, true};
}

Route DecideRoute(const ApiContext* ctx, bool approve) {
  std::string verb = approve ? "approve" : "deny";
  return {"POST",
          "/v1/approvals/{id}/" + verb,
          verb,
          approve ? "Approve a pending tool call: the run performs it"
                  : "Deny a pending tool call: the run reports it denied to the model",
          {ApprovalId()},
          {"application/json"},
          DecisionSchema(),
          {{200, "Decided: the approval after the decision", "application/json", ApprovalSchema()}},
          [ctx, approve](const Request& r, const PathParams& p) { return Decide(*ctx, r, p, approve); },
          access::Role::kApprover};
}

}  // namespace

void AddApprovalRoutes(const ControlApi& api, RouteTable& table) {
  const ApiContext* ctx = &api.context();
  table.Add({"GET", "/v1/approvals", "listApprovals", "List approvals (pending ones unless state=all), oldest first",
             {{"state", "query", "pending (the default) or all",
               {{"enum", {"pending", "all"}}, {"default", "pending"}}, false}},
             {}, {},
             {{200, "The approvals, oldest first", "application/json",
               {{"type", "object"},
                {"required", json::array({"approvals"})},
                {"properties", {{"approvals", {{"type", "array"}, {"items", ApprovalSchema()}}}}}}}},
             [ctx](const Request& r, const PathParams&) { return List(*ctx, r); },
             access::Role::kReader});
  table.Add({"GET", "/v1/approvals/{id}", "getApproval", "An approval", {ApprovalId()}, {}, {},
             {{200, "The approval", "application/json", ApprovalSchema()}},
             [ctx](const Request& r, const PathParams& p) { return Get(*ctx, r, p); },
             access::Role::kReader});
  table.Add(DecideRoute(ctx, true));
  table.Add(DecideRoute(ctx, false));
}

}  // namespace volent::control
