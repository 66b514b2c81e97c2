# datetime with a given date: arithmetic, formatting, ISO calendar, fixed offsets.
from datetime import date, datetime, time, timedelta, timezone

d = date(2024, 2, 28)
for n in range(4):
    day = d + timedelta(days=n)
    print(day.isoformat(), day.strftime("%A %d %B %Y (day %j, week %U)"), day.isocalendar(), day.weekday())
print(date(2023, 12, 31).isocalendar(), date(2021, 1, 3).isocalendar())
start = datetime(2024, 3, 10, 1, 30, 15, 123456)
print(start, start.isoformat(timespec="milliseconds"), start.weekday())
print((datetime(2025, 1, 1) - start), (datetime(2025, 1, 1) - start).total_seconds())
utc = datetime(2024, 6, 1, 12, 0, tzinfo=timezone.utc)
for hours in (-7, 0, 5.5, 9):
    tz = timezone(timedelta(hours=hours))
    print(utc.astimezone(tz).isoformat(), utc.astimezone(tz).tzname())
print(utc.timestamp(), datetime.fromtimestamp(1700000000, tz=timezone.utc))
print(datetime(2024, 1, 31) + timedelta(days=30), date.fromordinal(738000), date(2000, 1, 1).toordinal())
print(time(23, 59, 59, 999999).isoformat(), time(7, 5).strftime("%I:%M %p"))
print(timedelta(days=-1, seconds=5), timedelta(weeks=3, hours=-1) // timedelta(days=1), timedelta(hours=36) / 7)
print(sorted([date(2024, 5, 1), date(2023, 5, 1), date(2024, 4, 30)]), max(date(2024, 1, 1), date(2024, 1, 2)))
print(f"{start:%Y/%m/%d %H-%M-%S.%f}", format(d, "%a %b %e"), d.replace(year=2023, day=1).ctime())
