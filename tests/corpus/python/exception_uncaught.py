# An uncaught exception: status 1, traceback on stderr, earlier output kept.
def parse(record):
    key, value = record.split("=")
    return key, int(value)


print("parsing records")
for record in ["a=1", "b=2", "c=three"]:
    print(parse(record))
