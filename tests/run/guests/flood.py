# Writes 20 MiB to stdout, more than the output cap; the run still ends normally.
import sys

chunk = "x" * (1 << 20)
for _ in range(20):
    sys.stdout.write(chunk)
sys.stdout.flush()
print("flood done", file=sys.stderr)
