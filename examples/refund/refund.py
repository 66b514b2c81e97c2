# Computes the refund for one order of an order export, the way an agent would
# write it. Runs sealed under `ampoule run`: no arguments, only files.
#
#   input  /input/orders.csv   the export: one row per order line (see README.md)
#   stdin  the order id, e.g. "A-1002" (or, with empty stdin, /input/order.txt)
#   stdout one JSON document:
#          {"order": "A-1002", "customer": "...", "email": "...", "currency": "EUR",
#           "refund": "49.24", "breakdown": {...}}
#
# The refund rule (the same one src/ampoule/demo/refund_reference.cc implements):
#   goods          = sum of qty * unit_price over every line of the order
#   damaged        = the same sum over lines whose status is "damaged"
#   returned       = the same sum over lines whose status is "returned"
#   shipping share = shipping * damaged / goods, rounded half-up to the cent
#                    (shipping is the sum of the order's shipping cells)
#   restocking fee = 10% of returned, rounded half-up to the cent
#   refund         = damaged + shipping share + returned - restocking fee
# Amounts are decimal strings: never binary floating point for money.
import csv
import json
import sys
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
RESTOCKING_RATE = Decimal("0.10")
STATUSES = {"delivered", "damaged", "returned"}


def fail(message):
    print("refund.py: " + message, file=sys.stderr)
    sys.exit(1)


def cents(amount):
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def read_order_id():
    text = sys.stdin.read().strip()
    if not text:
        try:
            with open("/input/order.txt") as f:
                text = f.read().strip()
        except FileNotFoundError:
            fail("no order id: give it on stdin or as /input/order.txt")
    return text


def order_lines(order_id):
    with open("/input/orders.csv", newline="", encoding="utf-8") as f:
        return [row for row in csv.DictReader(f) if row["order_id"] == order_id]


def refund_for(order_id, lines):
    if not lines:
        fail("order %s is not in the export" % order_id)
    goods = damaged = returned = shipping = Decimal("0")
    for row in lines:
        status = row["line_status"]
        if status not in STATUSES:
            fail("order %s: unknown line status %r" % (order_id, status))
        value = int(row["qty"]) * Decimal(row["unit_price"])
        goods += value
        if status == "damaged":
            damaged += value
        elif status == "returned":
            returned += value
        if row["shipping"]:
            shipping += Decimal(row["shipping"])
    share = cents(shipping * damaged / goods) if goods else Decimal("0.00")
    fee = cents(returned * RESTOCKING_RATE)
    first = lines[0]
    return {
        "order": order_id,
        "customer": first["customer"],
        "email": first["email"],
        "currency": first["currency"],
        "refund": str(cents(damaged + share + returned - fee)),
        "breakdown": {
            "damaged": str(cents(damaged)),
            "shipping_share": str(share),
            "returned": str(cents(returned)),
            "restocking_fee": str(fee),
        },
    }


order_id = read_order_id()
print(json.dumps(refund_for(order_id, order_lines(order_id)), ensure_ascii=False, indent=2))
