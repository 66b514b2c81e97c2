# csv: read an input file, aggregate, write CSV to stdout.
# Inputs live under /input in the guest; AMPOULE_INPUT_DIR points elsewhere natively.
import csv
import os
import sys
from collections import defaultdict
from decimal import Decimal

INPUT = os.environ.get("AMPOULE_INPUT_DIR", "/input")
with open(os.path.join(INPUT, "sales.csv"), newline="") as f:
    rows = list(csv.DictReader(f))
print(len(rows), "rows; columns:", list(rows[0].keys()))
by_region = defaultdict(Decimal)
by_product = defaultdict(int)
for row in rows:
    by_region[row["region"]] += int(row["units"]) * Decimal(row["unit_price"])
    by_product[row["product"]] += int(row["units"])
writer = csv.writer(sys.stdout, lineterminator="\n")
writer.writerow(["region", "revenue"])
for region in sorted(by_region):
    writer.writerow([region, by_region[region]])
writer.writerow(["product", "units"])
for product, units in sorted(by_product.items(), key=lambda kv: (-kv[1], kv[0])):
    writer.writerow([product, units])
