# Allocates 4 MiB at a time until memory runs out; the memory cap stops it.
chunks = []
while True:
    chunks.append(bytearray(4 << 20))
    print("allocated", 4 * len(chunks), "MiB", flush=True)
