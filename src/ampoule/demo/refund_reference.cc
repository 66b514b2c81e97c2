// The reference refund computation (see refund_reference.h).
#include "ampoule/demo/refund_reference.h"

#include <array>
#include <map>

#include "ampoule/demo/csv.h"

namespace ampoule::demo {
namespace {

constexpr int64_t kMaxCents = 1'000'000'000'000;  // 10^10 in currency units: no overflow below

// "12.50" -> 1250. Digits, optionally '.' and one or two more digits.
core::Result<int64_t> ParseCents(std::string_view text) {
  int64_t units = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    units = units * 10 + (text[i] - '0');
    if (units * 100 > kMaxCents) return core::Error{"amount '" + std::string(text) + "' is too large"};
  }
  if (i == 0) return core::Error{"'" + std::string(text) + "' is not an amount"};
  int64_t cents = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    int digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 3; ++i, ++digits) {
      cents = cents * 10 + (text[i] - '0');
    }
    if (digits == 0 || digits > 2) {
      return core::Error{"amount '" + std::string(text) + "' needs one or two decimals"};
    }
    if (digits == 1) cents *= 10;
  }
  if (i != text.size()) return core::Error{"'" + std::string(text) + "' is not an amount"};
  return units * 100 + cents;
}

core::Result<int64_t> ParseQuantity(std::string_view text) {
  int64_t qty = 0;
  if (text.empty()) return core::Error{"empty quantity"};
  for (char c : text) {
    if (c < '0' || c > '9') return core::Error{"quantity '" + std::string(text) + "' is not a whole number"};
    qty = qty * 10 + (c - '0');
    if (qty > 1'000'000) return core::Error{"quantity '" + std::string(text) + "' is too large"};
  }
  return qty;
}

// round(num / den) with halves rounded up; num >= 0, den > 0.
int64_t DivideHalfUp(__int128 num, __int128 den) {
  return static_cast<int64_t>((2 * num + den) / (2 * den));
}

struct Totals {
  OrderRefund refund;
  int64_t goods = 0;
  int64_t shipping = 0;
};

constexpr std::array<std::string_view, 8> kColumns = {
    "order_id", "customer", "email", "currency", "qty", "unit_price", "line_status", "shipping"};
enum Column { kOrder, kCustomer, kEmail, kCurrency, kQty, kUnitPrice, kStatus, kShipping };

}  // namespace

std::string FormatCents(int64_t cents) {
  std::string sign = cents < 0 ? "-" : "";
  uint64_t magnitude = cents < 0 ? 0 - static_cast<uint64_t>(cents) : static_cast<uint64_t>(cents);
  std::string frac = std::to_string(magnitude % 100);
  if (frac.size() < 2) frac = "0" + frac;
  return sign + std::to_string(magnitude / 100) + "." + frac;
}

core::Result<std::vector<OrderRefund>> ComputeRefunds(std::string_view csv) {
  core::Result<std::vector<CsvRecord>> records = ParseCsv(csv);
  if (!records.ok()) return records.error();
  if (records->empty()) return core::Error{"the export is empty (no header line)"};

  // Columns by header name, so their order in the export does not matter.
  const CsvRecord& header = records->front();
  std::array<size_t, kColumns.size()> at{};
  for (size_t c = 0; c < kColumns.size(); ++c) {
    size_t found = header.size();
    for (size_t h = 0; h < header.size(); ++h) {
      if (header[h] == kColumns[c]) found = h;
    }
    if (found == header.size()) {
      return core::Error{"the export has no '" + std::string(kColumns[c]) + "' column"};
    }
    at[c] = found;
  }

  std::vector<Totals> orders;
  std::map<std::string, size_t, std::less<>> index;  // order id -> position in `orders`
  for (size_t r = 1; r < records->size(); ++r) {
    const CsvRecord& row = (*records)[r];
    const std::string where = "record " + std::to_string(r + 1);
    if (row.size() == 1 && row[0].empty()) continue;  // a blank line
    if (row.size() != header.size()) {
      return core::Error{where + ": " + std::to_string(row.size()) + " fields, the header has " +
                   std::to_string(header.size())};
    }
    auto [it, added] = index.try_emplace(row[at[kOrder]], orders.size());
    if (added) {
      Totals t;
      t.refund.order = row[at[kOrder]];
      t.refund.customer = row[at[kCustomer]];
      t.refund.email = row[at[kEmail]];
      t.refund.currency = row[at[kCurrency]];
      orders.push_back(std::move(t));
    }
    Totals& t = orders[it->second];

    core::Result<int64_t> qty = ParseQuantity(row[at[kQty]]);
    if (!qty.ok()) return core::Error{where + ": " + qty.message()};
    core::Result<int64_t> price = ParseCents(row[at[kUnitPrice]]);
    if (!price.ok()) return core::Error{where + ": unit_price: " + price.message()};
    const int64_t value = *qty * *price;
    if (value > kMaxCents) return core::Error{where + ": the line's value is too large"};
    t.goods += value;

    const std::string& status = row[at[kStatus]];
    if (status == "damaged") {
      t.refund.damaged_cents += value;
    } else if (status == "returned") {
      t.refund.returned_cents += value;
    } else if (status != "delivered") {
      return core::Error{where + ": unknown line status '" + status + "' (delivered, damaged, returned)"};
    }

    const std::string& shipping = row[at[kShipping]];
    if (!shipping.empty()) {
      core::Result<int64_t> cents = ParseCents(shipping);
      if (!cents.ok()) return core::Error{where + ": shipping: " + cents.message()};
      t.shipping += *cents;
    }
    if (t.goods > kMaxCents || t.shipping > kMaxCents) {
      return core::Error{where + ": order " + t.refund.order + " totals are too large"};
    }
  }

  std::vector<OrderRefund> out;
  out.reserve(orders.size());
  for (Totals& t : orders) {
    OrderRefund& r = t.refund;
    r.shipping_share_cents =
        t.goods == 0 ? 0 : DivideHalfUp(__int128(t.shipping) * r.damaged_cents, t.goods);
    r.restocking_fee_cents = DivideHalfUp(r.returned_cents * 10, 100);
    r.refund_cents =
        r.damaged_cents + r.shipping_share_cents + r.returned_cents - r.restocking_fee_cents;
    out.push_back(std::move(r));
  }
  return out;
}

core::Result<OrderRefund> ComputeRefund(std::string_view csv, std::string_view order_id) {
  core::Result<std::vector<OrderRefund>> all = ComputeRefunds(csv);
  if (!all.ok()) return all.error();
  for (OrderRefund& r : *all) {
    if (r.order == order_id) return std::move(r);
  }
  return core::Error{"order " + std::string(order_id) + " is not in the export"};
}

}  // namespace ampoule::demo
