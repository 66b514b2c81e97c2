# Two JSON inputs: a configuration and orders; computes totals exactly with Decimal.
import json
import os
from decimal import ROUND_HALF_UP, Decimal

INPUT = os.environ.get("AMPOULE_INPUT_DIR", "/input")


def load(name):
    with open(os.path.join(INPUT, name)) as f:
        return json.load(f, parse_float=Decimal)


config, orders = load("config.json"), load("orders.json")
cent = Decimal("0.01")
grand = Decimal(0)
for order in orders:
    net = sum((item["qty"] * item["price"] for item in order["items"]), Decimal(0))
    vat = sum((item["qty"] * item["price"] * config["vat"][item["rate"]] for item in order["items"]), Decimal(0))
    discount = net * Decimal("0.05") if net > config["discount_over"] else Decimal(0)
    total = (net + vat - discount).quantize(cent, rounding=ROUND_HALF_UP)
    grand += total
    print(f"order {order['id']}: net {net:.2f} vat {vat.quantize(cent)} discount {discount.quantize(cent)} "
          f"total {total} {config['currency']}")
print("grand total", grand, config["currency"])
print(json.dumps(sorted({i["sku"] for o in orders for i in o["items"]})))
print(sorted(os.listdir(INPUT)))
