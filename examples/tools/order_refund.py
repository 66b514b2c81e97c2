# An example Python tool that asks a service for its facts (docs/tools.md,
# "Requests"): it fetches an order from the internal order service through
# its capability import, that is through the node's egress gate under the
# capability its manifest grants it, and refunds the order's damaged lines.
#
# Takes {"orders_api": "http://HOST:PORT/api", "order_id": "17"} and answers
#   {"order_id": "17", "refundable_cents": 4759, "currency": "EUR",
#    "damaged": ["KETTLE-2L"]}
# The answer of the order service is recorded in the call's receipt, so the
# call replays off the node with no network (docs/tools.md).
from decimal import Decimal
import json
import sys

import volent_tool

args = volent_tool.arguments()
api, order_id = args.get("orders_api"), args.get("order_id")
if not isinstance(api, str) or not isinstance(order_id, str) or not order_id.isalnum():
    sys.exit("order_refund: needs orders_api (a URL) and order_id (letters and digits)")

try:
    response = volent_tool.http_request("GET", f"{api}/orders/{order_id}", headers={"Accept": "application/json"})
except volent_tool.HttpError as error:
    sys.exit(f"order_refund: the order service was not reached: {error}")
if response["status"] != 200:
    sys.exit(f"order_refund: the order service answered {response['status']}")

order = json.loads(response["body"])
damaged = [line for line in order["lines"] if line.get("state") == "damaged"]
cents = sum(int(Decimal(line["price"]) * 100) for line in damaged)
volent_tool.respond({"order_id": order_id, "refundable_cents": cents, "currency": order["currency"],
                     "damaged": [line["sku"] for line in damaged]})
