# A deterministic grader for one RL episode, the kind a vendor runs for a lab.
# Runs sealed under `ampoule run`: no arguments, only files.
#
#   input  /input/episode.json  {"episode": ID, "task": {"id", "items": [...]},
#                                "trajectory": [{"step", "action", ...}]}
#   stdout one JSON document:
#          {"episode": ID, "task": TASK_ID, "score": N, "max_score": M, "items": {...}}
#
# The grader computes each item's correct answer itself from the task, so it
# never trusts an answer key shipped with the episode. An item scores 1 when
# the agent's LAST "submit" action for it equals the correct answer, else 0.
# The episode id is copied into the output, so a receipt for one episode can
# never pass as the grade of another.
import json
import sys
from decimal import Decimal, InvalidOperation


def fail(message):
    print("grader.py: " + message, file=sys.stderr)
    sys.exit(1)


def as_decimal(value):
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


def correct_answer(item):
    kind = item["kind"]
    if kind == "sum":
        return sum((Decimal(n) for n in item["numbers"]), Decimal("0"))
    if kind == "max":
        return max(Decimal(n) for n in item["numbers"])
    if kind == "sort":
        return sorted(item["values"])
    if kind == "word_count":
        return len(item["text"].split())
    fail("item %s: unknown kind %r" % (item["id"], kind))


def is_correct(item, answer):
    truth = correct_answer(item)
    if item["kind"] in ("sum", "max"):
        # Decimal strings compare by value ("70.0" is "70.00"), never as floats.
        return isinstance(answer, str) and as_decimal(answer) == truth
    if item["kind"] == "word_count":
        return type(answer) is int and answer == truth
    return answer == truth


with open("/input/episode.json", encoding="utf-8") as f:
    episode = json.load(f)

last_answer = {}
for step in episode["trajectory"]:
    if step.get("action") == "submit":
        last_answer[step["item"]] = step["answer"]

results = {}
for item in episode["task"]["items"]:
    if item["id"] not in last_answer:
        results[item["id"]] = "missing"
    elif is_correct(item, last_answer[item["id"]]):
        results[item["id"]] = "correct"
    else:
        results[item["id"]] = "wrong"

print(json.dumps({
    "episode": episode["episode"],
    "task": episode["task"]["id"],
    "score": sum(1 for r in results.values() if r == "correct"),
    "max_score": len(results),
    "items": results,
}, indent=2))
