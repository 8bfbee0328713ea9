#!/usr/bin/env python3
"""Independent checker of fedmf's SecAgg test vectors (docs/vectors/secagg_3_clients.json).

Re-derives every value of the file from the secrets it records, following only docs/protocol.md
(derivations, byte layouts) and proto/fedmf/v1/secagg.proto (field numbers of the messages): it
shares no code with fedmf's C++, so its passing shows that the documents are enough to write a
compatible implementation. The primitives and encodings (HKDF, X25519, Ed25519, AES-GCM, the mask
PRG, Shamir, packing, the protobuf wire format) are in secagg_spec.py beside it; needs python3 and
python3-cryptography. Every field of the file must be used by some check: a field nothing
reads is reported as a failure, so that no recorded value goes unchecked.

Usage: check_vectors.py [--mutations] [VECTORS_JSON]   (default: docs/vectors/secagg_3_clients.json)
  --mutations: then alter each field of the file in turn (a hex digit flipped, a number plus one,
  an empty list given an element) and require every altered file to fail the checks.
Exit status: 0 all checks passed, 1 a check failed, 77 python3-cryptography is missing (ctest
SKIP_RETURN_CODE).
"""

import itertools
import json
import os
import re
import sys

SKIP = 77
sys.dont_write_bytecode = True  # run from the source tree: leave no __pycache__ in it
try:
    from secagg_spec import (ADVERTISE_KEYS_FIELDS, CLIENT_CASES, LABEL, MASKED_INPUT_FIELDS,
                             SERVER_CASES, aes_gcm_decrypt, ed25519_public, ed25519_sign,
                             ed25519_verifies, field, field_numbers, hkdf, oneof, pack,
                             proto_fields, prg, repeated, repeated_uint32, sha256,
                             shamir_evaluate, shamir_reconstruct, share_elements, u32, u64,
                             unpack, x25519_agree, x25519_public)
except ImportError as e:  # pragma: no cover - depends on the machine
    if not (e.name or "").startswith("cryptography"):
        raise
    print(f"SKIP: python3-cryptography is not installed ({e}); "
          "apt-get install python3-cryptography (deploy/install-deps.sh installs it)")
    sys.exit(SKIP)


# ----------------------------------------------------------------------------------------------
# Bookkeeping: every check is counted; every JSON field must be read.

class FirstFailure(Exception):
    pass


class Checks:
    def __init__(self, fail_fast=False):
        self.passed = 0
        self.failed = []
        self.fail_fast = fail_fast  # stop at the first failure (the mutation test)

    def fail(self, message):
        self.failed.append(message)
        if self.fail_fast:
            raise FirstFailure(message)

    def eq(self, what, got, want):
        if got == want:
            self.passed += 1
        else:
            self.fail(f"{what}: got {show(got)}, expected {show(want)}")

    def true(self, what, cond):
        if cond:
            self.passed += 1
        else:
            self.fail(what)


def show(v):
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(show(x) for x in v) + "]"
    return repr(v)


class Tracked(dict):
    """A JSON object that remembers which of its keys were read."""

    def __init__(self, *args):
        super().__init__(*args)
        self.used = set()

    def __getitem__(self, key):
        self.used.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.used.add(key)
        return super().get(key, default)


def unread_fields(node, path="$"):
    if isinstance(node, Tracked):
        for key, value in dict.items(node):
            if key not in node.used:
                yield f"{path}.{key}"
            else:
                yield from unread_fields(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from unread_fields(value, f"{path}[{i}]")


HEX = re.compile(r"(?:[0-9a-f]{2})*")


def h(s):
    """Bytes of a hex string of the file (a malformed one is an error)."""
    if not isinstance(s, str) or not HEX.fullmatch(s):
        raise ValueError(f"not lowercase hex: {s!r}")
    return bytes.fromhex(s)


# ----------------------------------------------------------------------------------------------
# Self-test against the examples docs/protocol.md gives, so that a wrong primitive here is not
# mistaken for a wrong file.

def self_test(ck):
    ck.eq("doc: prg keystream of the zero seed, b = 8",
          prg(bytes(32), 8, 4), [0xdc, 0x95, 0xc0, 0x78])
    ck.eq("doc: prg of the zero seed, b = 32",
          prg(bytes(32), 32, 4), [0x78c095dc, 0x898940a2, 0x14a248ad, 0x87208492])
    secret = bytes(range(28)) + bytes(4)
    coefficients = [[2, 1]] * 5  # f_c(x) = chunk_c + 2x + x^2
    shares = {x: shamir_evaluate(secret, coefficients, x) for x in (2, 4, 5)}
    chunks = [0x06050403020100, 0x0d0c0b0a090807, 0x14131211100f0e, 0x1b1a1918171615, 0]
    ck.eq("doc: hand-made Shamir shares at x = 4",
          share_elements(shares[4]), [c + 24 for c in chunks])
    ck.eq("doc: hand-made Shamir reconstruction (t = 3)",
          shamir_reconstruct(list(shares.items())), secret)


# ----------------------------------------------------------------------------------------------
# One session.

def check_session(ck, s):
    name = s["name"]
    s["description"]  # free text

    def what(text):
        return f"{name}: {text}"

    # Config digest.
    cfg = s["config"]
    context = cfg["context"].encode()
    n, t, b, d = cfg["num_clients"], cfg["threshold"], cfg["bits"], cfg["length"]
    graph = 1 if cfg["harary_graph"] else 0
    k = cfg["degree"]
    digest_input = (LABEL + b"config" + u32(len(context)) + context + u32(n) + u32(t) + u32(b)
                    + u64(d) + u32(graph) + u32(k) + u32(1 if cfg["signatures"] else 0)
                    + u32(1 if cfg["consistency_check"] else 0))
    ck.eq(what("config_digest_input"), digest_input, h(s["config_digest_input"]))
    digest = sha256(digest_input)
    ck.eq(what("config_digest"), digest, h(s["config_digest"]))
    ck.true(what("the vectors are of the complete graph (N[u] = U1)"), graph == 0 and k == 0)
    mask = (1 << b) - 1

    # Keys, self-mask secrets and their commitments, advertisements.
    clients = {c["id"]: c for c in s["clients"]}
    ck.eq(what("client ids ascending"), [c["id"] for c in s["clients"]], sorted(clients))
    keys = {}
    for cid, c in clients.items():
        c_sk, s_sk = h(c["c_private_key"]), h(c["s_private_key"])
        keys[cid] = {"c_sk": c_sk, "s_sk": s_sk, "c_pk": x25519_public(c_sk),
                     "s_pk": x25519_public(s_sk)}
        ck.eq(what(f"client {cid} c_public_key"), keys[cid]["c_pk"], h(c["c_public_key"]))
        ck.eq(what(f"client {cid} s_public_key"), keys[cid]["s_pk"], h(c["s_public_key"]))
        seed = h(c["signing_key_seed"])
        keys[cid]["signing_seed"] = seed
        keys[cid]["signing_pk"] = ed25519_public(seed)
        ck.eq(what(f"client {cid} signing_public_key"), keys[cid]["signing_pk"],
              h(c["signing_public_key"]))
        # b is drawn before advertising; the advertisement commits to it ("Key derivation").
        bu = h(c["self_mask_secret"])
        ck.eq(what(f"client {cid} self_mask_secret size"), len(bu), 32)
        commitment_input = LABEL + b"self-mask-commitment" + digest + u32(cid) + bu
        ck.eq(what(f"client {cid} self_mask_commitment_input"), commitment_input,
              h(c["self_mask_commitment_input"]))
        commitment = sha256(commitment_input)
        ck.eq(what(f"client {cid} self_mask_commitment"), commitment,
              h(c["self_mask_commitment"]))
        keys[cid]["commitment"] = commitment
        message = (LABEL + b"advertise" + digest + u32(cid) + keys[cid]["c_pk"]
                   + keys[cid]["s_pk"] + commitment)
        ck.eq(what(f"client {cid} advertise_message"), message, h(c["advertise_message"]))
        signature = ed25519_sign(seed, message)
        ck.eq(what(f"client {cid} advertise_signature"), signature, h(c["advertise_signature"]))
        ck.true(what(f"client {cid} advertise_signature verifies"),
                ed25519_verifies(keys[cid]["signing_pk"], message, h(c["advertise_signature"])))

    # Session id over U1.
    u1 = s["advertised"]
    ck.eq(what("advertised ascending"), u1, sorted(set(u1)))
    sid_input = LABEL + b"session-id" + digest + u32(len(u1))
    for cid in u1:
        sid_input += u32(cid) + keys[cid]["c_pk"] + keys[cid]["s_pk"]
    ck.eq(what("session_id_input"), sid_input, h(s["session_id_input"]))
    sid = sha256(sid_input)
    ck.eq(what("session_id"), sid, h(s["session_id"]))

    def hood(owner):
        return u1  # complete graph: N[u] = U1

    # Pairs: share_key and pairwise_seed, both directions.
    pairs = {}
    for p in s["pairs"]:
        lo, hi = p["lo"], p["hi"]
        ck.true(what(f"pair ({lo}, {hi}) ordered"), lo < hi)
        a, c = keys[lo], keys[hi]
        c_shared = x25519_agree(a["c_sk"], c["c_pk"])
        ck.eq(what(f"pair {lo},{hi} c_shared_secret (X25519 is symmetric)"),
              x25519_agree(c["c_sk"], a["c_pk"]), c_shared)
        ck.eq(what(f"pair {lo},{hi} c_shared_secret"), c_shared, h(p["c_shared_secret"]))
        info = LABEL + b"share-key" + u32(lo) + u32(hi) + a["c_pk"] + c["c_pk"]
        ck.eq(what(f"pair {lo},{hi} share_key_info"), info, h(p["share_key_info"]))
        share_key = hkdf(c_shared, sid, info)
        ck.eq(what(f"pair {lo},{hi} share_key"), share_key, h(p["share_key"]))
        s_shared = x25519_agree(a["s_sk"], c["s_pk"])
        ck.eq(what(f"pair {lo},{hi} s_shared_secret (X25519 is symmetric)"),
              x25519_agree(c["s_sk"], a["s_pk"]), s_shared)
        ck.eq(what(f"pair {lo},{hi} s_shared_secret"), s_shared, h(p["s_shared_secret"]))
        info = LABEL + b"pairwise-mask" + u32(lo) + u32(hi) + a["s_pk"] + c["s_pk"]
        ck.eq(what(f"pair {lo},{hi} pairwise_seed_info"), info, h(p["pairwise_seed_info"]))
        seed = hkdf(s_shared, sid, info)
        ck.eq(what(f"pair {lo},{hi} pairwise_seed"), seed, h(p["pairwise_seed"]))
        pairs[(lo, hi)] = {"share_key": share_key, "mask": prg(seed, b, d)}
        ck.eq(what(f"pair {lo},{hi} pairwise_mask"), pairs[(lo, hi)]["mask"], p["pairwise_mask"])
    ck.eq(what("one pair per two clients of U1"), sorted(pairs),
          list(itertools.combinations(u1, 2)))

    def pair(a, c):
        return pairs[(min(a, c), max(a, c))]

    # Share ciphertexts: AD, payload, AES-256-GCM.
    u2 = s["shared_keys"]
    payloads = {}
    commitments = {}  # (sender, receiver, 1 key / 2 self-mask) -> (commitment, salt)
    for e in s["share_ciphertexts"]:
        snd, rcv = e["sender"], e["receiver"]
        ad = sid + u32(snd) + u32(rcv)
        ck.eq(what(f"share_ad {snd}->{rcv}"), ad, h(e["associated_data"]))
        ct = h(e["ciphertext"])
        ck.eq(what(f"share_ciphertext {snd}->{rcv} size"), len(ct), 180)
        plain = aes_gcm_decrypt(pair(snd, rcv)["share_key"], ct, ad)
        ck.eq(what(f"share_ciphertext {snd}->{rcv} decrypts to the payload"), plain,
              h(e["payload"]))
        payload = h(e["payload"])
        ck.eq(what(f"share_payload {snd}->{rcv} size"), len(payload), 152)
        ck.eq(what(f"share_payload {snd}->{rcv} ids"), payload[:8], u32(snd) + u32(rcv))
        payloads[(snd, rcv)] = payload
        # The sender's commitment to each share: label || sid || sender || receiver || kind ||
        # share || salt, the salt following the two shares in the payload ("Share commitments").
        for name, kind, share, salt in (
                ("key_share_commitment", 1, payload[8:48], payload[88:120]),
                ("self_mask_share_commitment", 2, payload[48:88], payload[120:152])):
            preimage = (LABEL + b"share-commitment" + sid + u32(snd) + u32(rcv) + bytes([kind])
                        + share + salt)
            ck.eq(what(f"{name} {snd}->{rcv} input"), preimage, h(e[name + "_input"]))
            ck.eq(what(f"{name} {snd}->{rcv}"), sha256(preimage), h(e[name]))
            commitments[(snd, rcv, kind)] = (sha256(preimage), salt)
    ck.eq(what("one ciphertext per ordered pair of U2 x N(sender)"), sorted(payloads),
          sorted((x, y) for x in u2 for y in hood(x) if y != x))

    # Shamir: the payload's shares are the recorded ones; every t of them rebuild the secret.
    held = {}  # (owner, holder) -> (key share, self-mask share)
    secrets = {}
    for r in s["shamir"]:
        owner, kind = r["owner"], r["secret"]
        ck.true(what(f"owner {owner} secret kind {kind}"),
                kind in ("s_private_key", "self_mask_secret"))
        value = h(r["value"])
        if kind == "s_private_key":
            ck.eq(what(f"owner {owner} s_private_key shared"), value, keys[owner]["s_sk"])
        else:
            ck.eq(what(f"owner {owner} self_mask_secret shared"), value,
                  h(clients[owner]["self_mask_secret"]))
        secrets[(owner, kind)] = value
        ck.eq(what(f"owner {owner} {kind} threshold"), r["threshold"], t)
        ck.eq(what(f"owner {owner} {kind} num_shares = |N[owner]|"), r["num_shares"],
              len(hood(owner)))
        indexed = []
        for i, sh in enumerate(r["shares"]):
            holder = sh["holder"]
            ck.eq(what(f"owner {owner} {kind} holder {i}"), holder, hood(owner)[i])
            ck.eq(what(f"owner {owner} {kind} index of holder {holder} (0-based position + 1)"),
                  sh["index"], hood(owner).index(holder) + 1)
            share = h(sh["share"])
            share_elements(share)
            indexed.append((sh["index"], share))
            slot = 8 if kind == "s_private_key" else 48
            if holder != owner:
                ck.eq(what(f"share of {owner}'s {kind} in payload {owner}->{holder}"),
                      payloads[(owner, holder)][slot:slot + 40], share)
            held.setdefault((owner, holder), {})[kind] = share
        for subset in itertools.combinations(indexed, t):
            try:
                rebuilt = shamir_reconstruct(list(subset))
            except ValueError as err:
                rebuilt = str(err)
            ck.eq(what(f"owner {owner} {kind} from indices {[x for x, _ in subset]}"), rebuilt,
                  value)
    ck.eq(what("two shared secrets per client of U2"), sorted(secrets),
          sorted((o, kind) for o in u2 for kind in ("s_private_key", "self_mask_secret")))

    # Masking.
    u3 = s["included"]
    masked = {}
    self_masks = {}
    reported = {}  # u -> the senders whose shares u reported unusable
    for cid, c in clients.items():
        x = c["input"]
        ck.eq(what(f"client {cid} input length"), len(x), d)
        ck.eq(what(f"client {cid} input_packed"), pack(x, b), h(c["input_packed"]))
        if cid not in u2:
            continue
        bu = h(c["self_mask_secret"])
        info = LABEL + b"self-mask" + u32(cid)
        ck.eq(what(f"client {cid} self_mask_seed_info"), info, h(c["self_mask_seed_info"]))
        seed = hkdf(bu, sid, info)
        ck.eq(what(f"client {cid} self_mask_seed"), seed, h(c["self_mask_seed"]))
        self_masks[cid] = prg(seed, b, d)
        ck.eq(what(f"client {cid} self_mask"), self_masks[cid], c["self_mask"])
        if cid not in u3:
            ck.true(what(f"client {cid} outside U3 has no masked input"),
                    "masked_input" not in c and "masked_input_packed" not in c
                    and "unusable_shares_from" not in c)
            continue
        # Senders whose ciphertext it could not use: every ciphertext above decrypted to a
        # payload naming its sender and receiver, so none (honest sessions). Their pairwise masks
        # would be added all the same.
        reported[cid] = c["unusable_shares_from"]
        ck.eq(what(f"client {cid} unusable_shares_from (every ciphertext to it is usable)"),
              reported[cid], [])
        senders = c["masked_with"]
        y = [(x[i] + self_masks[cid][i]) & mask for i in range(d)]
        for v in senders:
            m = pair(cid, v)["mask"]
            y = [((y[i] + m[i]) if cid < v else (y[i] - m[i])) & mask for i in range(d)]
        ck.eq(what(f"client {cid} masked_input"), y, c["masked_input"])
        ck.eq(what(f"client {cid} masked_input_packed"), pack(y, b), h(c["masked_input_packed"]))
        ck.eq(what(f"client {cid} masked_input_packed unpacks"),
              unpack(h(c["masked_input_packed"]), d, b), y)
        masked[cid] = y

    # Consistency check.
    cc = s["consistency_check"]
    survivors = cc["survivor_ids"]
    ck.eq(what("survivor_ids = U3"), survivors, u3)
    message = LABEL + b"survivors" + sid + u32(len(survivors)) + b"".join(map(u32, survivors))
    ck.eq(what("survivors_message"), message, h(cc["survivors_message"]))
    signers = []
    for sig in cc["signatures"]:
        cid = sig["client_id"]
        signers.append(cid)
        ck.eq(what(f"survivor signature of {cid}"),
              ed25519_sign(keys[cid]["signing_seed"], message),
              h(sig["signature"]))
    ck.eq(what("every survivor signed"), signers, survivors)

    # Unmasking: requests, responses (the shares held), the secrets rebuilt from the first t
    # shares received per owner, the masks removed, the sum.
    un = s["unmasking"]
    dropped = [w for w in u2 if w not in u3]
    for rq in un["requests"]:
        cid = rq["client"]
        ck.eq(what(f"unmasking request to {cid}: dropped_ids = N(u) ∩ (U2 \\ U3)"),
              rq["dropped_ids"], [w for w in dropped if w != cid])
        ck.eq(what(f"unmasking request to {cid}: signers"), rq["signers"], signers)
    ck.eq(what("unmasking requests go to U3"), [rq["client"] for rq in un["requests"]], u3)
    first_t = {}
    for rs in un["responses"]:
        cid = rs["client"]
        self_shares = [(e["owner_id"], h(e["share"])) for e in rs["self_mask_shares"]]
        key_shares = [(e["owner_id"], h(e["share"])) for e in rs["key_shares"]]
        # Each share comes with the salt of its owner's commitment (none for the revealer's own),
        # so that the server's check of the reveal passes ("Misbehaving clients").
        for number, key in ((2, "self_mask_shares"), (1, "key_shares")):
            for e in rs[key]:
                owner, share, salt = e["owner_id"], h(e["share"]), h(e["salt"])
                if owner == cid:
                    ck.eq(what(f"{cid} reveals its own {key} without a salt"), salt, b"")
                    continue
                commitment, dealt_salt = commitments[(owner, cid, number)]
                ck.eq(what(f"{cid} reveals the salt {owner} dealt with its {key} share"), salt,
                      dealt_salt)
                ck.eq(what(f"{cid}'s revealed {key} share of {owner} matches the commitment"),
                      sha256(LABEL + b"share-commitment" + sid + u32(owner) + u32(cid)
                             + bytes([number]) + share + salt), commitment)
        usable = [o for o in hood(cid) if o not in reported[cid]]  # shares it holds
        ck.eq(what(f"{cid} reveals self-mask shares of N[u] ∩ U3 minus what it reported"),
              [o for o, _ in self_shares], [o for o in usable if o in u3])
        ck.eq(what(f"{cid} reveals key shares of N(u) ∩ (U2 \\ U3) minus what it reported"),
              [o for o, _ in key_shares], [o for o in usable if o in dropped])
        for kind, revealed in (("self_mask_secret", self_shares), ("s_private_key", key_shares)):
            for owner, share in revealed:
                ck.eq(what(f"{cid} reveals the {kind} share of {owner} it holds"), share,
                      held[(owner, cid)][kind])
                got = first_t.setdefault(owner, (kind, []))[1]
                if len(got) < t:
                    got.append((cid, hood(owner).index(cid) + 1, share))
    ck.eq(what("unmasking responses from U3"), [rs["client"] for rs in un["responses"]], u3)
    rebuilt = {}
    for r in un["rebuilt"]:
        owner, kind = r["owner"], r["secret"]
        want_kind, got = first_t[owner]
        ck.eq(what(f"rebuilt {owner}: kind"), kind, want_kind)
        ck.eq(what(f"rebuilt {owner}: holders (first t responses)"), r["holders"],
              [c for c, _, _ in got])
        ck.eq(what(f"rebuilt {owner}: indices"), r["indices"], [i for _, i, _ in got])
        value = shamir_reconstruct([(i, sh) for _, i, sh in got])
        ck.eq(what(f"rebuilt {owner} {kind}"), value, h(r["value"]))
        ck.eq(what(f"rebuilt {owner} {kind} is the owner's secret"), value, secrets[(owner, kind)])
        # The server's checks: a rebuilt s_SK against s_pk, a rebuilt b against the commitment.
        if kind == "s_private_key":
            ck.eq(what(f"rebuilt key of {owner} matches its s_pk"), x25519_public(value),
                  keys[owner]["s_pk"])
        else:
            ck.eq(what(f"rebuilt b of {owner} matches its self_mask_commitment"),
                  sha256(LABEL + b"self-mask-commitment" + digest + u32(owner) + value),
                  keys[owner]["commitment"])
        rebuilt[owner] = (kind, value)
    ck.eq(what("a secret rebuilt per client of U2"), sorted(rebuilt), sorted(u2))

    total = [0] * d
    for cid in u3:
        total = [(total[i] + masked[cid][i]) & mask for i in range(d)]
    ck.eq(what("sum_of_masked_inputs"), total, un["sum_of_masked_inputs"])
    removed = []
    for owner, (kind, value) in sorted(rebuilt.items()):
        if kind == "self_mask_secret":
            m = prg(hkdf(value, sid, LABEL + b"self-mask" + u32(owner)), b, d)
            total = [(total[i] - m[i]) & mask for i in range(d)]
            removed.append({"mask": "self", "owner": owner, "op": "subtract"})
            continue
        for v in hood(owner):
            if v not in u3:
                continue
            seed = hkdf(x25519_agree(value, keys[v]["s_pk"]), sid,
                        LABEL + b"pairwise-mask" + u32(min(owner, v)) + u32(max(owner, v))
                        + keys[min(owner, v)]["s_pk"] + keys[max(owner, v)]["s_pk"])
            m = prg(seed, b, d)
            op = "subtract" if v < owner else "add"  # v added it if v < owner
            total = [((total[i] - m[i]) if op == "subtract" else (total[i] + m[i])) & mask
                     for i in range(d)]
            removed.append({"mask": "pairwise", "dropped": owner, "survivor": v, "op": op})
    ck.eq(what("removed_masks"), removed,
          [{k: r[k] for k in dict.keys(r)} for r in un["removed_masks"]])
    ck.eq(what("sum (unmasked)"), total, s["sum"])
    plain = [0] * d
    for cid in u3:
        plain = [(plain[i] + clients[cid]["input"][i]) & mask for i in range(d)]
    ck.eq(what("sum = sum over U3 of x_u mod 2^b"), s["sum"], plain)

    check_messages(ck, s, what, keys, sid, u1, u2, u3, payloads, signers)


def encrypted_shares(data):
    """An EncryptedShares entry: (peer_id, ciphertext, key share and self-mask share commitments);
    no other field."""
    f = proto_fields(data)
    if field_numbers(f) != [1, 2, 3, 4]:
        raise ValueError(f"EncryptedShares fields {field_numbers(f)}, expected [1, 2, 3, 4]")
    return (field(f, 1), field(f, 2), field(f, 3), field(f, 4))


def check_messages(ck, s, what, keys, sid, u1, u2, u3, payloads, signers):
    """Every serialized message against the values above (secagg.proto field numbers)."""
    cts = {(e["sender"], e["receiver"]): (h(e["ciphertext"]), h(e["key_share_commitment"]),
                                          h(e["self_mask_share_commitment"]))
           for e in s["share_ciphertexts"]}
    clients = {c["id"]: c for c in s["clients"]}
    stages = []
    seen = set()
    un = {rs["client"]: rs for rs in s["unmasking"]["responses"]}
    cc_sigs = {e["client_id"]: h(e["signature"]) for e in s["consistency_check"]["signatures"]}
    for i, m in enumerate(s["messages"]):
        stage, direction, cid = m["stage"], m["direction"], m["client"]
        if not stages or stages[-1] != stage:
            stages.append(stage)
        ck.true(what(f"message {i} type"), m["type"] == ("fedmf.v1.secagg.ServerToClient"
                                                         if direction == "server_to_client"
                                                         else "fedmf.v1.secagg.ClientToServer"))
        data = h(m["bytes"])
        if direction == "client_to_server":
            case, f = oneof(data, CLIENT_CASES)
        else:
            ck.eq(what(f"message {i} direction"), direction, "server_to_client")
            case, f = oneof(data, SERVER_CASES)
        tag = f"message {i} ({stage} {direction} {cid}, {case})"
        seen.add((stage, direction, case))
        if direction == "client_to_server" and case == "advertise_keys":
            c = clients[cid]
            ck.eq(what(tag + " c_public_key"), field(f, 1), h(c["c_public_key"]))
            ck.eq(what(tag + " s_public_key"), field(f, 2), h(c["s_public_key"]))
            ck.eq(what(tag + " signature"), field(f, 3), h(c["advertise_signature"]))
            ck.eq(what(tag + " self_mask_commitment"), field(f, 4), h(c["self_mask_commitment"]))
            ck.eq(what(tag + " fields"), field_numbers(f), sorted(ADVERTISE_KEYS_FIELDS))
        elif direction == "server_to_client" and case == "share_keys":
            ck.eq(what(tag + " session_id"), field(f, 1), sid)
            ck.eq(what(tag + " num_advertised"), field(f, 2), len(u1))
            listed = []
            for entry in repeated(f, 3):
                ef = proto_fields(entry)
                kid = field(ef, 1)
                kf = proto_fields(field(ef, 2, b""))
                listed.append(kid)
                ck.eq(what(tag + f" keys of {kid} (its advertisement as sent)"),
                      (field(kf, 1), field(kf, 2), field(kf, 3), field(kf, 4),
                       field_numbers(kf)),
                      (keys[kid]["c_pk"], keys[kid]["s_pk"],
                       h(clients[kid]["advertise_signature"]), keys[kid]["commitment"],
                       sorted(ADVERTISE_KEYS_FIELDS)))
            ck.eq(what(tag + " clients = N[u]"), listed, u1)
        elif direction == "client_to_server" and case == "share_keys":
            got = [encrypted_shares(e) for e in repeated(f, 1)]
            ck.eq(what(tag + " ciphertexts and commitments"), got,
                  [(v,) + cts[(cid, v)] for v in u1 if v != cid])
        elif direction == "server_to_client" and case == "masked_input":
            got = [encrypted_shares(e) for e in repeated(f, 1)]
            ck.eq(what(tag + " ciphertexts and commitments to u"), got,
                  [(v,) + cts[(v, cid)] for v in u2 if v != cid])
            ck.eq(what(tag + " masked_with = senders"), [e[0] for e in got],
                  clients[cid]["masked_with"])
        elif direction == "client_to_server" and case == "masked_input":
            ck.eq(what(tag + " packed"), field(f, 1), h(clients[cid]["masked_input_packed"]))
            ck.eq(what(tag + " unusable_shares_from"), repeated_uint32(f, 2),
                  clients[cid]["unusable_shares_from"])
            # Empty, so absent on the wire: the bytes are those of a MaskedInput without it.
            ck.eq(what(tag + " fields (unusable_shares_from absent)"), field_numbers(f),
                  [n for n in sorted(MASKED_INPUT_FIELDS)
                   if n == 1 or clients[cid]["unusable_shares_from"]])
        elif direction == "server_to_client" and case == "consistency_check":
            ck.eq(what(tag + " survivor_ids"), repeated_uint32(f, 1), u3)
        elif direction == "client_to_server" and case == "consistency_check":
            ck.eq(what(tag + " signature"), field(f, 1), cc_sigs[cid])
        elif direction == "server_to_client" and case == "unmasking":
            ck.eq(what(tag + " dropped_ids"), repeated_uint32(f, 1),
                  [w for w in u2 if w not in u3 and w != cid])
            sigs = [(field(proto_fields(e), 1), field(proto_fields(e), 2)) for e in repeated(f, 2)]
            ck.eq(what(tag + " signatures"), sigs, [(c, cc_sigs[c]) for c in signers])
        elif direction == "client_to_server" and case == "unmasking":
            for number, key in ((1, "self_mask_shares"), (2, "key_shares")):
                got = [(field(proto_fields(e), 1), field(proto_fields(e), 2),
                        field(proto_fields(e), 3, b"")) for e in repeated(f, number)]
                ck.eq(what(tag + " " + key), got,
                      [(e["owner_id"], h(e["share"]), h(e["salt"])) for e in un[cid][key]])
        else:
            ck.true(what(tag + " is not a message of a completed session"), False)
    ck.eq(what("stage order"), stages,
          ["AdvertiseKeys", "ShareKeys", "MaskedInput", "ConsistencyCheck", "Unmasking"])
    # Who sent and got what, per stage.
    count = {}
    for m in s["messages"]:
        count.setdefault((m["stage"], m["direction"]), []).append(m["client"])
    expect = {("AdvertiseKeys", "client_to_server"): u1,
              ("ShareKeys", "server_to_client"): u1, ("ShareKeys", "client_to_server"): u1,
              ("MaskedInput", "server_to_client"): u3, ("MaskedInput", "client_to_server"): u3,
              ("ConsistencyCheck", "server_to_client"): u3,
              ("ConsistencyCheck", "client_to_server"): u3,
              ("Unmasking", "server_to_client"): u3, ("Unmasking", "client_to_server"): u3}
    ck.eq(what("clients per stage and direction"), {k: sorted(v) for k, v in count.items()},
          expect)


def run_checks(doc, fail_fast=False):
    """All checks of a parsed file (objects parsed as Tracked); returns the Checks."""
    ck = Checks(fail_fast)
    try:
        run_all(ck, doc)
    except FirstFailure:
        pass
    return ck


def run_all(ck, doc):
    self_test(ck)
    ck.eq("format", doc["format"], "fedmf-secagg-test-vectors/1")
    doc["about"], doc["generator"]  # free text
    names = []
    for s in doc["sessions"]:
        names.append(s["name"])
        try:
            check_session(ck, s)
        except (KeyError, ValueError, TypeError, IndexError, AttributeError) as err:
            ck.fail(f"{s.get('name')}: malformed ({type(err).__name__}: {err})")
    ck.eq("sessions", names, ["no_dropout", "client_3_drops"])
    if not ck.failed:
        for unread in unread_fields(doc):
            ck.fail(f"{unread}: a field no check reads")


def leaves(node, path=()):
    """The paths of the scalars, and of the empty lists (which hold none)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from leaves(value, path + (key,))
    elif isinstance(node, list):
        if not node:
            yield path
        for i, value in enumerate(node):
            yield from leaves(value, path + (i,))
    else:
        yield path


def mutated(value):
    """A different value of the same JSON type: one hex digit flipped, a number plus one, an
    empty list given an element (e.g. an `unusable_shares_from` naming client 1)."""
    if value == []:
        return [1]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        if value and all(c in "0123456789abcdef" for c in value):
            i = len(value) // 2
            return value[:i] + format(int(value[i], 16) ^ 1, "x") + value[i + 1:]
        return value + "x"
    raise TypeError(type(value))


def mutation_test(text):
    """Alters each field of the file in turn (except free text) and checks that a check fails:
    each scalar, and each empty list (`unusable_shares_from`, `dropped_ids`, `key_shares` where
    nothing is revealed)."""
    plain = json.loads(text)
    free_text = {"about", "generator", "description"}
    survived, tried = [], 0
    for path in leaves(plain):
        if path[-1] in free_text:
            continue
        doc = json.loads(text)
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = mutated(node[path[-1]])
        tried += 1
        if not run_checks(json.loads(json.dumps(doc), object_hook=Tracked), True).failed:
            survived.append("$" + "".join(f"[{k!r}]" for k in path))
    return tried, survived


def main(argv):
    args = [a for a in argv[1:] if a != "--mutations"]
    here = os.path.dirname(os.path.abspath(__file__))
    path = args[0] if args else os.path.join(here, "..", "..", "docs", "vectors",
                                             "secagg_3_clients.json")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    ck = run_checks(json.loads(text, object_hook=Tracked))
    for failure in ck.failed:
        print(f"FAIL {failure}")
    print(f"check_vectors: {ck.passed} passed, {len(ck.failed)} failed ({os.path.normpath(path)})")
    if ck.failed:
        return 1
    if "--mutations" in argv:
        tried, survived = mutation_test(text)
        for where in survived:
            print(f"FAIL altering {where} goes unnoticed")
        print(f"check_vectors --mutations: {tried - len(survived)} of {tried} alterations "
              "detected")
        return 1 if survived else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
