// The refund rule of examples/refund, computed independently of refund.py:
// C++, integer cents, its own CSV reader. `ampoule demo refund` compares the
// two on the held-out export, because a receipt proves what ran, not that the
// code was right.
//
// The rule (examples/refund/README.md), per order:
//   goods          = sum of qty * unit_price over every line
//   damaged        = the same sum over "damaged" lines
//   returned       = the same sum over "returned" lines
//   shipping share = shipping * damaged / goods, rounded half-up to the cent
//                    (0 when goods is 0; shipping = sum of the shipping cells)
//   restocking fee = 10% of returned, rounded half-up to the cent
//   refund         = damaged + shipping share + returned - restocking fee
//
// The export needs the columns order_id, customer, email, currency, qty,
// unit_price, line_status and shipping, found by header name. An amount is
// digits with at most two decimals ("12.5", "12.50", "12"); no sign, no
// exponent. Anything else is an error naming the line, as is an unknown
// line status or an amount over 10^12 cents.
//
// Thread-safe: no state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace ampoule::demo {

struct OrderRefund {
  std::string order;
  std::string customer;  // from the order's first line
  std::string email;
  std::string currency;
  int64_t damaged_cents = 0;
  int64_t shipping_share_cents = 0;
  int64_t returned_cents = 0;
  int64_t restocking_fee_cents = 0;
  int64_t refund_cents = 0;
};

// Every order of the export, in the order of their first line.
core::Result<std::vector<OrderRefund>> ComputeRefunds(std::string_view csv);

// One order; an error if the export has no line for it.
core::Result<OrderRefund> ComputeRefund(std::string_view csv, std::string_view order_id);

// 1730 -> "17.30", 5 -> "0.05", -5 -> "-0.05".
std::string FormatCents(int64_t cents);

}  // namespace ampoule::demo
