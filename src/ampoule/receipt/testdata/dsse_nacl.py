#!/usr/bin/python3
"""An independent DSSE + Ed25519 checker for receipt tests, using PyNaCl.

Written from the DSSE protocol and envelope texts, sharing no code with the
C++ implementation, so the two can check each other.

  dsse_nacl.py verify ENVELOPE KEY.pub   exit 0 if a signature verifies under
                                         the key and the payload is an in-toto
                                         Statement v1; 1 if not; 2 on misuse;
                                         3 on unreadable input
  dsse_nacl.py sign SEED_HEX PAYLOAD_FILE
                                         print an envelope signed with the seed,
                                         in URL-safe base64 without padding
"""
import base64
import json
import sys

import nacl.exceptions
import nacl.signing

IN_TOTO = "application/vnd.in-toto+json"


def pae(payload_type: bytes, body: bytes) -> bytes:
    return b"DSSEv1 %d %s %d %s" % (len(payload_type), payload_type, len(body), body)


def b64decode(text: str) -> bytes:
    # DSSE: verifiers accept the standard and the URL-safe alphabet.
    text = text.replace("-", "+").replace("_", "/")
    return base64.b64decode(text + "=" * (-len(text) % 4), validate=True)


def read_public_key(path: str) -> bytes:
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if words and not words[0].startswith("#"):
                if words[0] != "ed25519":
                    raise ValueError("not an ed25519 public key line")
                return base64.b64decode(words[1], validate=True)
    raise ValueError("no key in file")


def verify(envelope_path: str, key_path: str) -> int:
    key = nacl.signing.VerifyKey(read_public_key(key_path))
    with open(envelope_path, encoding="utf-8") as f:
        envelope = json.load(f)
    payload = b64decode(envelope["payload"])
    payload_type = envelope["payloadType"]
    message = pae(payload_type.encode("utf-8"), payload)
    for signature in envelope["signatures"]:
        try:
            key.verify(message, b64decode(signature["sig"]))
        except (nacl.exceptions.BadSignatureError, ValueError):
            continue
        if payload_type != IN_TOTO:
            print("signed, but payloadType is not in-toto")
            return 1
        statement = json.loads(payload)
        if statement.get("_type") != "https://in-toto.io/Statement/v1":
            print("signed, but not an in-toto Statement v1")
            return 1
        print("verified")
        return 0
    print("no signature verifies")
    return 1


def sign(seed_hex: str, payload_path: str) -> int:
    key = nacl.signing.SigningKey(bytes.fromhex(seed_hex))
    with open(payload_path, "rb") as f:
        payload = f.read()
    sig = key.sign(pae(IN_TOTO.encode(), payload)).signature
    b64 = lambda b: base64.urlsafe_b64encode(b).decode().rstrip("=")
    print(json.dumps({"payloadType": IN_TOTO, "payload": b64(payload),
                      "signatures": [{"keyid": "", "sig": b64(sig)}]}))
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "verify":
        return verify(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "sign":
        return sign(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except Exception as e:  # malformed input: not a verdict
        print("error: %s" % e, file=sys.stderr)
        sys.exit(3)
