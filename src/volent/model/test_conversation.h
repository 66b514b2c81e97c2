// A whole conversation with tool calls and results, shared by the model
// tests: the user asks, the model calls two tools, gets one result and one
// error, and the user adds a remark.
#pragma once

#include "volent/model/conversation.h"

namespace volent::model::testing {

inline Conversation WholeConversation() {
  Conversation c;
  c.system = "You process refunds.";
  c.max_tokens = 512;
  c.tools = {{"lookup_order", "Fetch an order.",
              {{"type", "object"}, {"properties", {{"order_id", {{"type", "string"}}}}}, {"required", {"order_id"}}}},
             {"issue_refund", "", {{"type", "object"}}}};
  c.messages = {
      Message::User("Refund order 42."),
      Message::Assistant("Looking it up.",
                         {{"call_1", "lookup_order", {{"order_id", "42"}}}, {"call_2", "issue_refund", {{"amount", 5}}}}),
      Message::ToolResults({{"call_1", {{"status", 200}, {"body", {{"total", 10}}}}, false},
                            {"call_2", "denied-by-approver", true}}),
      Message::User("Only half, please."),
      Message::Assistant("", {{"call_3", "issue_refund", nlohmann::json::object()}}),
  };
  return c;
}

}  // namespace volent::model::testing
