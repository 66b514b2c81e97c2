# Time zones from the kernel's tzdata (read-only at /usr/share/zoneinfo):
# conversions across daylight-saving changes, named zones, fold, and the
# zone list. Dates are fixed (no clock), in years whose rules no recent
# tzdata release changed.
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo, available_timezones

utc = timezone.utc
for name in ("Europe/Paris", "America/New_York", "Asia/Tokyo", "Australia/Sydney",
             "America/Sao_Paulo", "Asia/Kolkata", "Pacific/Chatham"):
    zone = ZoneInfo(name)
    for stamp in ("2021-01-15T12:00:00", "2021-07-15T12:00:00"):
        moment = datetime.fromisoformat(stamp).replace(tzinfo=utc).astimezone(zone)
        print(f"{name:20} {moment.isoformat()} {moment.tzname()} dst={moment.dst()}")

paris = ZoneInfo("Europe/Paris")
# The hour that repeats when summer time ends, 2022-10-30 in Paris.
for fold in (0, 1):
    t = datetime(2022, 10, 30, 2, 30, fold=fold, tzinfo=paris)
    print("fold", fold, t.utcoffset(), t.astimezone(utc).isoformat())
# Walking across the spring change, 2023-03-26.
t = datetime(2023, 3, 26, 0, 30, tzinfo=utc)
for _ in range(4):
    print(t.astimezone(paris).isoformat())
    t += timedelta(minutes=30)

print("aliases equal:", ZoneInfo("US/Eastern").utcoffset(datetime(2021, 1, 1)) ==
      ZoneInfo("America/New_York").utcoffset(datetime(2021, 1, 1)))
zones = available_timezones()
print("zones include Paris, Tokyo, UTC:", {"Europe/Paris", "Asia/Tokyo", "UTC"} <= zones)
try:
    ZoneInfo("Mars/Olympus_Mons")
except Exception as e:
    print(type(e).__name__)
with open("/usr/share/zoneinfo/zone1970.tab") as f:
    print("zone1970.tab has Paris:", any("Europe/Paris" in line for line in f))
