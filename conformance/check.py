#!/usr/bin/env python3
"""Checks Probity's conformance vectors with implementations Probity did not
write: the PyPI `rfc8785` package for canonical bytes and `hashlib` for the
digests. Usage: python3 check.py [DIR]  (default: this file's directory).

Exit 0 when every vector holds, 1 otherwise (each mismatch is printed).
"""

import hashlib
import json
import pathlib
import sys

import rfc8785

MAX_SAFE = 2**53 - 1
# The deepest nesting of arrays and objects a reader accepts: 127 levels
# (128 or more is refused as invalid_json).
MAX_DEPTH = 127


def preimage(v):
    enc = v["encoding"]
    if enc == "jcs":
        return rfc8785.dumps(v["input"])
    if enc == "utf8":
        return v["input"].encode("utf-8")
    if enc == "dsse_pae":
        t = v["input"]["payloadType"].encode("utf-8")
        body = v["input"]["payload"].encode("utf-8")
        return b"DSSEv1 %d %s %d %s" % (len(t), t, len(body), body)
    if enc == "record_key":
        i = v["input"]
        parts = [i["origin"], i["repository_id"], i["kind"], i["id"]]
        return b"\x00".join(p.encode("utf-8") for p in parts)
    raise ValueError(f"unknown encoding {enc!r}")


def digest(domain, data):
    h = hashlib.sha256()
    if domain is not None:
        h.update(domain.encode("ascii") + b"\x00")
    h.update(data)
    return h.hexdigest()


class Refused(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


def strict_load(text):
    """An independent strict reader: no duplicate keys, no floats (`-0`
    included: an integer cannot keep its sign), integers within
    +-(2^53 - 1), valid Unicode, at most MAX_DEPTH levels of nesting,
    nothing after the value."""

    def pairs(items):
        seen = {}
        for k, val in items:
            if k in seen:
                raise Refused("duplicate_key")
            seen[k] = val
        return seen

    def reject_float(_s):
        raise Refused("float")

    def check_int(s):
        if s == "-0":
            raise Refused("float")
        n = int(s)
        if abs(n) > MAX_SAFE:
            raise Refused("integer_out_of_range")
        return n

    try:
        value = json.loads(
            text,
            object_pairs_hook=pairs,
            parse_float=reject_float,
            parse_int=check_int,
        )
    except Refused:
        raise
    except (ValueError, RecursionError) as e:
        raise Refused("invalid_json") from e

    def walk(x, depth=0):
        if isinstance(x, (list, dict)):
            depth += 1
            if depth > MAX_DEPTH:
                raise Refused("invalid_json")
        if isinstance(x, str):
            try:
                x.encode("utf-8")
            except UnicodeEncodeError as e:  # a lone surrogate
                raise Refused("invalid_json") from e
        elif isinstance(x, list):
            for y in x:
                walk(y, depth)
        elif isinstance(x, dict):
            for k, y in x.items():
                walk(k, depth)
                walk(y, depth)

    walk(value)
    return value


def lines(path):
    # One document per "\n"-terminated line; str.splitlines() would also
    # split inside strings holding U+2028 or U+2029.
    return [l for l in path.read_text(encoding="utf-8").split("\n") if l]


def check_vectors(path):
    failures = 0
    count = 0
    for n, line in enumerate(lines(path), 1):
        v = json.loads(line)
        count += 1
        where = f"{path.name}:{n} {v['kind']}/{v['name']}"
        data = preimage(v)
        if data.hex() != v["canonical_hex"]:
            print(f"FAIL {where}: canonical bytes differ")
            print(f"  rfc8785: {data!r}")
            print(f"  vector:  {bytes.fromhex(v['canonical_hex'])!r}")
            failures += 1
            continue
        d = digest(v["domain"], data)
        if d != v["sha256"]:
            print(f"FAIL {where}: sha256 {d} != {v['sha256']}")
            failures += 1
            continue
        derived = v.get("derived") or {}
        if "lineage_id" in derived and derived["lineage_id"] != "review-" + d[:16]:
            print(f"FAIL {where}: lineage id is not review- + 16 hex")
            failures += 1
        if "record_key" in derived and derived["record_key"] != d:
            print(f"FAIL {where}: record key differs")
            failures += 1
        if "token" in derived and derived["token"] != "lbt1-" + d[:20]:
            print(f"FAIL {where}: binding token is not lbt1- + 20 hex")
            failures += 1
    return count, failures


def check_refusals(path):
    failures = 0
    count = 0
    for n, line in enumerate(lines(path), 1):
        r = json.loads(line)
        count += 1
        where = f"{path.name}:{n} {r['name']}"
        text = r["input_text"]
        if r["reader"] == "json":
            try:
                value = strict_load(text)
                # Anything a strict reader passes must still canonicalize.
                rfc8785.dumps(value)
                got = None
            except Refused as e:
                got = e.code
            except rfc8785.IntegerDomainError:
                got = "integer_out_of_range"
            except rfc8785.FloatDomainError:
                got = "float"
            if got != r["error"]:
                print(f"FAIL {where}: expected {r['error']}, independent reader says {got}")
                failures += 1
        elif r["reader"] == "state_record":
            value = json.loads(text)
            if rfc8785.dumps(value) == text.encode("utf-8"):
                print(f"FAIL {where}: the record is canonical, yet listed as a refusal")
                failures += 1
            elif r["error"] != "not_canonical":
                print(f"FAIL {where}: unexpected code {r['error']}")
                failures += 1
        else:
            print(f"FAIL {where}: unknown reader {r['reader']!r}")
            failures += 1
    return count, failures


def main():
    d = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).parent
    vectors = sorted(d.glob("vectors-*.jsonl"))
    refusals = sorted(d.glob("refusals-*.jsonl"))
    if not vectors or not refusals:
        print(f"no vector files in {d}")
        return 1
    passed = failed = 0
    for p in vectors:
        c, f = check_vectors(p)
        passed += c - f
        failed += f
    for p in refusals:
        c, f = check_refusals(p)
        passed += c - f
        failed += f
    print(f"conformance: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
