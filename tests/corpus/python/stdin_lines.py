# stdin: read lines, total the numbers, echo the rest upper-cased.
import sys

total = 0
for number, line in enumerate(sys.stdin, 1):
    line = line.rstrip("\n")
    try:
        total += float(line)
    except ValueError:
        print(f"{number}: {line.upper()!r}")
print("total", total)
print("stdin at EOF:", sys.stdin.read() == "")
