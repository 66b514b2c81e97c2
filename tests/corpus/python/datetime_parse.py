# datetime parsing: strptime, fromisoformat (3.11 forms), ages and durations.
from datetime import date, datetime, timezone

for text in ["2024-03-15", "2024-03-15T10:20:30", "2024-03-15T10:20:30.5+02:00", "2024-03-15 10:20Z",
             "20240315T102030", "2024-W11-5"]:
    try:
        print(text, "->", repr(datetime.fromisoformat(text)))
    except ValueError as e:
        print(text, "-> ValueError:", e)
for text, fmt in [("15/03/2024 10:20", "%d/%m/%Y %H:%M"), ("March 5, 1999", "%B %d, %Y"),
                  ("Fri 15 Mar 2024 08:00:00 PM +0530", "%a %d %b %Y %I:%M:%S %p %z"), ("2024-366", "%Y-%j"),
                  ("31/02/2024", "%d/%m/%Y")]:
    try:
        print(text, "->", datetime.strptime(text, fmt))
    except ValueError as e:
        print(text, "-> ValueError:", e)
born, today = date(1990, 7, 14), date(2024, 3, 15)
age = today.year - born.year - ((today.month, today.day) < (born.month, born.day))
print("age", age, "days alive", (today - born).days)
moments = ["2024-03-15T23:30:00-05:00", "2024-03-16T01:00:00+00:00", "2024-03-16T06:00:00+05:30"]
parsed = [datetime.fromisoformat(m) for m in moments]
for m in sorted(parsed):
    print(m.astimezone(timezone.utc).isoformat(), m.utcoffset())
print(parsed[0] == parsed[1].replace(hour=4, minute=30))
