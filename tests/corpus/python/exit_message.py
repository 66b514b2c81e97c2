# sys.exit with a message: the message goes to stderr and the status is 1.
import sys

print("checking configuration")
sys.exit("configuration invalid: missing key 'name'")
