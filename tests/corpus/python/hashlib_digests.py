# hashlib and hmac: every built-in algorithm, incremental hashing, keyed blake2.
import hashlib
import hmac
import warnings

data = b"The quick brown fox jumps over the lazy dog"
for name in ["md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha3_256", "sha3_512", "blake2b", "blake2s"]:
    print(f"{name:9} {hashlib.new(name, data).hexdigest()}")
print("shake_128", hashlib.shake_128(data).hexdigest(20))
h = hashlib.sha256()
for chunk in (data[i:i + 7] for i in range(0, len(data), 7)):
    h.update(chunk)
print("incremental", h.hexdigest() == hashlib.sha256(data).hexdigest(), h.digest_size, h.block_size)
print("empty", hashlib.sha256().hexdigest())
print("blake2b keyed", hashlib.blake2b(data, key=b"secret", digest_size=16, person=b"ampoule").hexdigest())
print("hmac", hmac.new(b"key", data, "sha256").hexdigest())
print("compare", hmac.compare_digest(b"abc", b"abc"), hmac.compare_digest("abc", "abd"))
big = bytes(range(256)) * 4096
print("1 MiB sha1", hashlib.sha1(big).hexdigest(), "md5", hashlib.md5(big).hexdigest())
# Without OpenSSL, pbkdf2_hmac is the pure-Python fallback, which warns that it is deprecated.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    print("pbkdf2", hashlib.pbkdf2_hmac("sha256", b"password", b"salt", 1000).hex())
print(sorted(hashlib.algorithms_guaranteed))
