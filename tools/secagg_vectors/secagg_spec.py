"""The primitives and encodings of fedmf's SecAgg protocol in Python, from docs/protocol.md and
proto/fedmf/v1/secagg.proto alone (no code shared with fedmf's C++): what a third-party
implementation needs below the protocol's derivations, used by check_vectors.py.

Needs python3-cryptography (X25519, Ed25519, HKDF-SHA256, AES-256-GCM, AES-256-CTR); importing this
module without it raises ImportError.
"""

import functools
import hashlib

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, x25519
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

P61 = (1 << 61) - 1
LABEL = b"fedmf/secagg/v1/"  # every label starts with it ("Conventions and derivation index")


def u32(v):
    return v.to_bytes(4, "little")


def u64(v):
    return v.to_bytes(8, "little")


# ----------------------------------------------------------------------------------------------
# Primitives (docs/protocol.md "Primitives").

def sha256(b):
    return hashlib.sha256(b).digest()


@functools.lru_cache(maxsize=None)
def hkdf(ikm, salt, info):
    # RFC 5869, L = 32; an empty salt is the RFC default (HashLen zero bytes).
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt or None, info=info).derive(ikm)


@functools.lru_cache(maxsize=None)
def x25519_public(private):
    key = x25519.X25519PrivateKey.from_private_bytes(private)
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


@functools.lru_cache(maxsize=None)
def x25519_agree(private, public):
    shared = x25519.X25519PrivateKey.from_private_bytes(private).exchange(
        x25519.X25519PublicKey.from_public_bytes(public))
    if shared == bytes(32):
        raise ValueError("low-order point")
    return shared


@functools.lru_cache(maxsize=None)
def ed25519_sign(seed, message):
    # RFC 8032 signatures are deterministic: the same seed and message give the same signature.
    return ed25519.Ed25519PrivateKey.from_private_bytes(seed).sign(message)


@functools.lru_cache(maxsize=None)
def ed25519_public(seed):
    key = ed25519.Ed25519PrivateKey.from_private_bytes(seed).public_key()
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def aes_gcm_decrypt(key, ciphertext, associated_data):
    """Opens a `share_ciphertext`, nonce (12) || ciphertext || tag (16); None if it does not
    authenticate."""
    try:
        return AESGCM(key).decrypt(ciphertext[:12], ciphertext[12:], associated_data)
    except Exception:  # InvalidTag, or a malformed input
        return None


def ed25519_verifies(public, message, signature):
    try:
        ed25519.Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
        return True
    except Exception:  # InvalidSignature, or a malformed key
        return False


# "Mask PRG": AES-256-CTR keystream from a zero counter block; value i = (K >> i*b) mod 2^b with
# K read as one little-endian integer.
def prg(seed, b, d):
    nbytes = (d * b + 7) // 8
    enc = Cipher(algorithms.AES(seed), modes.CTR(bytes(16))).encryptor()
    k = int.from_bytes(enc.update(bytes(nbytes)) + enc.finalize(), "little")
    return [(k >> (i * b)) & ((1 << b) - 1) for i in range(d)]


# "Wire format of vectors": value i in bits [i*b, (i+1)*b), LSB-first, ceil(d*b/8) bytes.
def pack(values, b):
    acc = 0
    for i, v in enumerate(values):
        assert 0 <= v < (1 << b)
        acc |= v << (i * b)
    return acc.to_bytes((len(values) * b + 7) // 8, "little")


def unpack(data, d, b):
    if len(data) != (d * b + 7) // 8:
        raise ValueError("packed size")
    acc = int.from_bytes(data, "little")
    if acc >> (d * b):
        raise ValueError("padding bits set")
    return [(acc >> (i * b)) & ((1 << b) - 1) for i in range(d)]


# "Shamir sharing": 5 chunks of bytes [0,7) [7,14) [14,21) [21,28) [28,32), little-endian.
CHUNKS = [(0, 7), (7, 14), (14, 21), (21, 28), (28, 32)]


def share_elements(share):
    if len(share) != 40:
        raise ValueError("share is not 40 bytes")
    elements = [int.from_bytes(share[8 * c:8 * c + 8], "little") for c in range(5)]
    if any(e >= P61 for e in elements):
        raise ValueError("share element >= p")
    return elements


def shamir_reconstruct(indexed_shares):
    """indexed_shares: [(index, 40-byte share)], exactly t of them. Returns the 32-byte secret."""
    xs = [x for x, _ in indexed_shares]
    if len(set(xs)) != len(xs):
        raise ValueError("duplicate index")
    ys = [share_elements(s) for _, s in indexed_shares]
    out = b""
    for c, (lo, hi) in enumerate(CHUNKS):
        value = 0
        for j, xj in enumerate(xs):
            num, den = 1, 1
            for m, xm in enumerate(xs):
                if m != j:
                    num = num * (-xm) % P61
                    den = den * (xj - xm) % P61
            value = (value + ys[j][c] * num * pow(den, P61 - 2, P61)) % P61
        width = hi - lo
        if value >= (1 << (8 * width)):
            raise ValueError("inconsistent shares (chunk out of range)")
        out += value.to_bytes(width, "little")
    return out


def shamir_evaluate(secret, coefficients, x):
    """The share at x of f_c(x) = chunk_c + sum_k coefficients[c][k] x^(k+1) (for the self-test)."""
    out = b""
    for c, (lo, hi) in enumerate(CHUNKS):
        y = int.from_bytes(secret[lo:hi], "little")
        for k, a in enumerate(coefficients[c]):
            y = (y + a * pow(x, k + 1, P61)) % P61
        out += u64(y)
    return out


# ----------------------------------------------------------------------------------------------
# Protocol buffers wire format, as much as secagg.proto needs (varints and length-delimited).

def proto_fields(data):
    """[(field number, value)]: int for varints, bytes for length-delimited fields."""
    fields, i = [], 0

    def varint():
        nonlocal i
        shift = value = 0
        while True:
            byte = data[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    while i < len(data):
        key = varint()
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            fields.append((number, varint()))
        elif wire_type == 2:
            n = varint()
            fields.append((number, bytes(data[i:i + n])))
            i += n
        else:
            raise ValueError(f"wire type {wire_type} is not used by secagg.proto")
    if i != len(data):
        raise ValueError("truncated message")
    return fields


def field(fields, number, default=None):
    found = [v for n, v in fields if n == number]
    return found[-1] if found else default


def repeated(fields, number):
    return [v for n, v in fields if n == number]


def repeated_uint32(fields, number):
    """A repeated scalar: packed (proto3's default) or not."""
    out = []
    for v in repeated(fields, number):
        if isinstance(v, int):
            out.append(v)
        else:
            sub, i = v, 0
            while i < len(sub):
                shift = value = 0
                while True:
                    byte = sub[i]
                    i += 1
                    value |= (byte & 0x7F) << shift
                    shift += 7
                    if not byte & 0x80:
                        break
                out.append(value)
    return out


# The oneof cases of ClientToServer and ServerToClient (secagg.proto).
CLIENT_CASES = {1: "advertise_keys", 2: "share_keys", 3: "masked_input", 4: "consistency_check",
                5: "unmasking", 6: "abort"}
SERVER_CASES = {1: "share_keys", 2: "masked_input", 3: "consistency_check", 4: "unmasking",
                5: "abort"}


# The fields of the messages whose every field the checker compares (secagg.proto).
ADVERTISE_KEYS_FIELDS = {1: "c_public_key", 2: "s_public_key", 3: "signature",
                         4: "self_mask_commitment"}
MASKED_INPUT_FIELDS = {1: "packed", 2: "unusable_shares_from"}


def field_numbers(fields):
    """The distinct field numbers present on the wire, ascending (proto3 omits empty fields)."""
    return sorted({n for n, _ in fields})


def oneof(data, cases):
    fields = proto_fields(data)
    if len(fields) != 1 or fields[0][0] not in cases:
        raise ValueError("not exactly one known case")
    return cases[fields[0][0]], proto_fields(fields[0][1])
