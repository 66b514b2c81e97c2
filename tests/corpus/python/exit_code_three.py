# Exit codes: output is flushed, then sys.exit(3) makes the status 3.
import sys

print("about to exit with 3")
sys.stdout.flush()
print("error detail", file=sys.stderr)
try:
    sys.exit(3)
finally:
    print("finally runs before exit")
