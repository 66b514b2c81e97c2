# calendar: month text, leap years, weekday arithmetic.
import calendar

print(calendar.month(2024, 2))
print(calendar.TextCalendar(calendar.SUNDAY).formatmonth(2023, 12))
print([y for y in range(1896, 1920) if calendar.isleap(y)], calendar.leapdays(1900, 2100))
print(calendar.monthrange(2024, 2), calendar.weekday(2000, 1, 1), calendar.day_name[calendar.weekday(1969, 7, 20)])
print(calendar.monthcalendar(2024, 3))
print(list(calendar.Calendar().itermonthdates(2024, 4))[:3], calendar.timegm((2024, 3, 15, 12, 0, 0)))
