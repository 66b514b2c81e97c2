# Totals the refunds an agent proposes from a CSV of orders, and prints one
# JSON line that a gate can check against the signed output.
import csv
import json
from decimal import Decimal

total = Decimal("0")
refunds = []
with open("/input/orders.csv", newline="") as f:
    for row in csv.DictReader(f):
        if row["status"] == "damaged":
            amount = Decimal(row["amount"])
            refunds.append({"order": row["order"], "amount": str(amount)})
            total += amount

print(json.dumps({"refunds": refunds, "total": str(total), "currency": "EUR"}, sort_keys=True))
