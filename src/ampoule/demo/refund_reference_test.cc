// The reference refund computation and its CSV reader: the rule's rounding
// (half-up, not half-even), shipping shares, restocking fees, and the
// held-out export's edge cases with amounts worked out by hand.
#include "ampoule/demo/refund_reference.h"

#include <gtest/gtest.h>

#include <map>

#include "ampoule/demo/csv.h"
#include "ampoule/demo/embedded_files.h"

namespace ampoule::demo {
namespace {

constexpr std::string_view kHeader =
    "order_id,order_date,customer,email,currency,sku,description,qty,unit_price,line_status,"
    "shipping\n";

std::string Export(std::string_view lines) { return std::string(kHeader) + std::string(lines); }

OrderRefund Refund(std::string_view csv, std::string_view order) {
  core::Result<OrderRefund> r = ComputeRefund(csv, order);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.message());
  return r.ok() ? *r : OrderRefund{};
}

TEST(Csv, QuotedFieldsHoldCommasQuotesAndLineBreaks) {
  core::Result<std::vector<CsvRecord>> r = ParseCsv("a,\"b, c\",\"say \"\"hi\"\"\"\r\n\"x\ny\",,z");
  ASSERT_TRUE(r.ok()) << r.message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0], (CsvRecord{"a", "b, c", "say \"hi\""}));
  EXPECT_EQ((*r)[1], (CsvRecord{"x\ny", "", "z"}));
}

TEST(Csv, TrailingCommaIsAnEmptyLastField) {
  core::Result<std::vector<CsvRecord>> r = ParseCsv("a,b,\n");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0], (CsvRecord{"a", "b", ""}));
  r = ParseCsv("a,\"\"");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0], (CsvRecord{"a", ""}));
}

TEST(Csv, MalformedQuotingIsAnErrorWithTheLine) {
  core::Result<std::vector<CsvRecord>> r = ParseCsv("a,b\nc,d\"e\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("line 2"), std::string::npos) << r.message();
  EXPECT_FALSE(ParseCsv("a,\"never closed\n").ok());
  EXPECT_FALSE(ParseCsv("\"closed\"x,b\n").ok());
}

TEST(FormatCents, TwoDecimalsAndSign) {
  EXPECT_EQ(FormatCents(1730), "17.30");
  EXPECT_EQ(FormatCents(5), "0.05");
  EXPECT_EQ(FormatCents(0), "0.00");
  EXPECT_EQ(FormatCents(-5), "-0.05");
}

TEST(RefundRule, DamagedLineGetsItsShippingShare) {
  // 42.00 of 51.80 damaged: 6.90 * 42.00 / 51.80 = 5.5945... -> 5.59.
  std::string csv = Export(
      "A-1,2026-11-21,Bo,bo@example.se,EUR,L,Lamp,1,42.00,damaged,6.90\n"
      "A-1,2026-11-21,Bo,bo@example.se,EUR,B,Bulbs,1,9.80,delivered,\n");
  OrderRefund r = Refund(csv, "A-1");
  EXPECT_EQ(r.damaged_cents, 4200);
  EXPECT_EQ(r.shipping_share_cents, 559);
  EXPECT_EQ(r.refund_cents, 4759);
  EXPECT_EQ(r.customer, "Bo");
  EXPECT_EQ(r.email, "bo@example.se");
  EXPECT_EQ(r.currency, "EUR");
}

TEST(RefundRule, HalvesRoundUpNotToEven) {
  // Restocking fee 10% of 12.45 = 1.245 -> 1.25 (half-even would give 1.24).
  OrderRefund fee = Refund(Export("R,d,c,e,EUR,s,x,1,12.45,returned,3.90\n"), "R");
  EXPECT_EQ(fee.restocking_fee_cents, 125);
  EXPECT_EQ(fee.refund_cents, 1120);
  // Shipping share 4.95 * 10 / 20 = 2.475 -> 2.48.
  OrderRefund share = Refund(Export("S,d,c,e,EUR,s,x,1,10.00,damaged,4.95\n"
                                    "S,d,c,e,EUR,t,y,1,10.00,delivered,\n"),
                             "S");
  EXPECT_EQ(share.shipping_share_cents, 248);
  EXPECT_EQ(share.refund_cents, 1248);
}

TEST(RefundRule, AllDamagedRefundsAllShippingAndDeliveredNothing) {
  std::string csv = Export(
      "D,d,c,e,EUR,a,x,4,6.45,damaged,4.95\n"
      "D,d,c,e,EUR,b,y,4,3.10,damaged,\n"
      "N,d,c,e,EUR,a,x,2,24.00,delivered,5.90\n"
      "Z,d,c,e,EUR,a,x,1,0.00,damaged,2.90\n");
  EXPECT_EQ(Refund(csv, "D").refund_cents, 3820 + 495);
  EXPECT_EQ(Refund(csv, "N").refund_cents, 0);
  // A zero-priced damaged line takes no share of the shipping.
  EXPECT_EQ(Refund(csv, "Z").refund_cents, 0);
}

TEST(RefundRule, LinesOfAnOrderNeedNotBeAdjacentAndColumnsGoByName) {
  std::string csv =
      "shipping,line_status,unit_price,qty,currency,email,customer,order_id\n"
      "5.50,damaged,29.00,1,EUR,r@example.se,Rosa,A\n"
      "3.00,delivered,1.00,1,EUR,o@example.se,Other,B\n"
      ",delivered,41.00,1,EUR,r@example.se,Rosa,A\n";
  // 5.50 * 29 / 70 = 2.2785... -> 2.28.
  EXPECT_EQ(Refund(csv, "A").refund_cents, 2900 + 228);
  core::Result<std::vector<OrderRefund>> all = ComputeRefunds(csv);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].order, "A");
  EXPECT_EQ((*all)[1].order, "B");
}

TEST(RefundRule, BadInputIsAnErrorNamingTheRecord) {
  auto error = [](std::string_view lines) {
    core::Result<std::vector<OrderRefund>> r = ComputeRefunds(Export(lines));
    return r.ok() ? std::string() : r.message();
  };
  EXPECT_NE(error("A,d,c,e,EUR,s,x,1,9.99,lost,0\n").find("unknown line status 'lost'"),
            std::string::npos);
  EXPECT_NE(error("A,d,c,e,EUR,s,x,1,9.999,damaged,0\n").find("record 2"), std::string::npos);
  EXPECT_NE(error("A,d,c,e,EUR,s,x,1,-3.00,damaged,0\n"), "");
  EXPECT_NE(error("A,d,c,e,EUR,s,x,1.5,3.00,damaged,0\n"), "");
  EXPECT_NE(error("A,d,c,e,EUR,s,x,1,3.00,damaged\n").find("10 fields"), std::string::npos);
  EXPECT_NE(error("A,d,c,e,EUR,s,x,1,99999999999999.00,damaged,0\n"), "");
  EXPECT_FALSE(ComputeRefunds("order_id,customer\n").ok());  // missing columns
  EXPECT_FALSE(ComputeRefund(Export("A,d,c,e,EUR,s,x,1,1.00,damaged,0\n"), "B").ok());
}

// The held-out export shipped with the demo, against amounts worked out by
// hand from its rows.
TEST(RefundRule, HeldOutExportAsWorkedOutByHand) {
  core::Result<std::string_view> csv = FindEmbeddedFile("refund/orders-heldout.csv");
  ASSERT_TRUE(csv.ok()) << csv.message();
  core::Result<std::vector<OrderRefund>> all = ComputeRefunds(*csv);
  ASSERT_TRUE(all.ok()) << all.message();
  std::map<std::string, std::string> got;
  for (const OrderRefund& r : *all) got[r.order] = FormatCents(r.refund_cents) + " " + r.currency;
  const std::map<std::string, std::string> want = {
      {"A-2001", "43.15 EUR"},  // all damaged: 38.20 + all of the 4.95 shipping
      {"A-2002", "11.20 EUR"},  // 12.45 returned less 1.25 (1.245 rounded up)
      {"A-2003", "12.48 EUR"},  // 10.00 + 2.48 (2.475 rounded up)
      {"A-2004", "23.97 EUR"},  // free shipping
      {"A-2005", "0.00 EUR"},   // delivered only
      {"A-2006", "61.73 EUR"},  // 45.50 + 5.16 + 12.30 - 1.23
      {"A-2007", "30.42 EUR"},  // 33.80 returned less 3.38
      {"A-2008", "14.22 EUR"},  // 11.88 + 2.34
      {"A-2009", "35.53 GBP"},  // 32.00 + 3.53
      {"A-2010", "35.91 EUR"},  // 39.90 less 3.99
      {"A-2011", "31.28 EUR"},  // lines apart: 29.00 + 2.28
      {"A-2012", "0.00 EUR"},   // a free damaged line takes no shipping
  };
  EXPECT_EQ(got, want);
  const OrderRefund& okafor = (*all)[6];
  EXPECT_EQ(okafor.order, "A-2006");
  EXPECT_EQ(okafor.customer, "Okafor, Chidi");
}

}  // namespace
}  // namespace ampoule::demo
