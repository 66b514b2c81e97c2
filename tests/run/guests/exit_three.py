# The guest's exit status is the run's.
import sys

print("exiting with 3")
sys.exit(3)
