# An example Python tool for Volent's sealed tool calls (docs/tools.md): the
# same refund policy as refund_policy.c, run by the kernel's pinned CPython.
#
# Every sealed tool reads its arguments from stdin as one JSON object and
# writes its result to stdout as one JSON value; an error is a message on
# stderr and a non-zero exit status. This one takes
#   {"amount_cents": INTEGER, "days_since_delivery": INTEGER, "opened": BOOLEAN}
# and answers
#   {"refundable_cents": INTEGER, "rule": "full" | "restocking-fee" | "expired"}
import json
import sys

args = json.load(sys.stdin)
amount, days = args.get("amount_cents"), args.get("days_since_delivery")
if not isinstance(amount, int) or not isinstance(days, int) or amount < 0 or days < 0:
    sys.exit("refund_policy: needs non-negative integers amount_cents and days_since_delivery")

if days > 30:
    answer = {"refundable_cents": 0, "rule": "expired"}
elif args.get("opened") is True:
    answer = {"refundable_cents": amount - amount // 10, "rule": "restocking-fee"}  # a 10% restocking fee
else:
    answer = {"refundable_cents": amount, "rule": "full"}
print(json.dumps(answer))
