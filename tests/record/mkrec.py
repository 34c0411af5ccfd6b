#!/usr/bin/env python3
"""mkrec.py: a small encoder of recordings (docs/record-format.md), written
from that page alone, for the tests of the trace2 command's reader.

    python3 tests/record/mkrec.py DESC OUT    (DESC, OUT: '-' for stdin, stdout)

DESC is a Python list (read with ast.literal_eval) of steps, in file order:

    ("magic",)  or  ("magic", {"version": 3, "flags": 1})   (version 2 by default)
    ("process", KEY, {"sid": S, "pid": N, "start": US, "version": V, "unit": 1})
    ("strings", KEY, FIRST, [S, ...])
    ("sites", KEY, FIRST, [(FILE, LINE, CATEGORY, LABEL, REPO), ...])
                                            FILE, CATEGORY, LABEL: string
                                            numbers (None: absent)
    ("thread", KEY, ID, NAME)
    ("tz", KEY, TIME, OFFSET)
    ("events", KEY, THREAD, BASE_TIME, BASE_T_ABS, [RECORD, ...])
    ("dropped", KEY, THREAD, COUNT)
    ("end", KEY, REASON)
    ("block", TYPE, KEY, "hex payload")     any block, as given
    ("raw", "hex")                          bytes as they are
    ("cut", N)                              the file so far cut to N bytes
                                            (negative: N bytes fewer)

A RECORD is (KIND, {fields}) with KIND an event name of the page's table,
or ("raw", "hex") for bytes as they are.  Its fields: "time", "t_abs"
(absolute: the deltas are worked out here), "nesting" (default 1),
"t_rel" (written when given), "file" and "line" (a file: a str written in
place, an int a string number, None absent), "head" (a head byte of
one's own), and the kind's fields by the page's names.
A record with a "site" field is a site record of that site number: head
(kind | 0x80, 0x40 with "t_rel"), dtime, nesting, t_rel, site; "t_abs"
may be left out (it moves with "time"; given, it must).  Any kind takes
"site": a malformed site record is the test's to ask for.
A str is bytes when given as bytes.  Strings default to absent, repo to
-1, numbers to 0.  KEY is the 64-bit process key.
"""
import ast
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decode  # noqa: E402  (its table of kinds)

MAGIC_SIG = decode.MAGIC

# The kinds and their fields, as the page's table has them: shared with
# the tests' decoder of recordings.
KINDS = {name: (number, fields) for number, (name, fields) in decode.KINDS.items()}


def uv(n):
    assert 0 <= n < 1 << 64
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def sv(n):
    assert -(1 << 63) <= n < 1 << 63
    return uv(((n << 1) ^ (n >> 63)) & ((1 << 64) - 1))


def raw(s):
    return s if isinstance(s, bytes) else s.encode()


def bytes_(s):
    b = raw(s)
    return uv(len(b)) + b


def str_(s):
    if s is None:
        return uv(0)
    b = raw(s)
    return uv(len(b) + 1) + b


def istr(s):
    if s is None:
        return uv(0)
    if isinstance(s, int):
        assert s >= 2
        return uv(s)
    return uv(1) + bytes_(s)


def argv(v):
    if v is None:
        return uv(0)
    return uv(len(v) + 1) + b"".join(bytes_(a) for a in v)


def field(kind, value):
    if kind == "str":
        return str_(value)
    if kind == "istr":
        return istr(value)
    if kind == "sv":
        return sv(value)
    if kind == "uv":
        return uv(value)
    if kind == "argv":
        return argv(value)
    if kind == "u8":
        return bytes([ord(value) if isinstance(value, str) else value])
    raise ValueError(kind)


def block(btype, key, payload):
    return struct.pack("<BBHIQ", btype, 0, 0, len(payload), key) + payload


def events(thread, base_time, base_t_abs, records):
    out = bytearray(uv(thread) + struct.pack("<QQ", base_time, base_t_abs))
    time, t_abs = base_time, base_t_abs
    for name, f in records:
        if name == "raw":
            out += bytes.fromhex(f)
            continue
        kind, fields = KINDS[name]
        head = kind | (0x40 if "t_rel" in f else 0) | (0x80 if "site" in f else 0)
        dtime = f["time"] - time
        if "site" in f:
            t_abs += dtime
            if f.get("t_abs", t_abs) != t_abs:
                raise ValueError("a site record's t_abs moves with its time")
            time = f["time"]
            out.append(f.get("head", head))
            out += sv(dtime) + uv(f.get("nesting", 1))
            if "t_rel" in f:
                out += uv(f["t_rel"])
            out += uv(f["site"])
            continue
        dt_abs = f["t_abs"] - (t_abs + dtime)
        time, t_abs = f["time"], f["t_abs"]
        out.append(f.get("head", head))
        out += sv(dtime) + sv(dt_abs) + uv(f.get("nesting", 1))
        if "t_rel" in f:
            out += uv(f["t_rel"])
        out += istr(f.get("file")) + uv(f.get("line", 0))
        for ftype, fname in fields:
            dflt = -1 if fname == "repo" and name != "def_repo" else \
                0 if ftype in ("sv", "uv", "u8") else None
            out += field(ftype, f.get(fname, dflt))
    return bytes(out)


def step(out, s):
    op, args = s[0], s[1:]
    if op == "magic":
        o = args[0] if args else {}
        out += MAGIC_SIG + struct.pack("<HHI", o.get("version", 2), o.get("flags", 0), 0)
    elif op == "process":
        key, p = args
        out += block(1, key, str_(p["sid"]) + uv(p.get("pid", 1)) +
                     struct.pack("<Q", p.get("start", 0)) + str_(p.get("version", "0.1.0")) +
                     uv(p.get("unit", 1)))
    elif op == "strings":
        key, first, strs = args
        out += block(2, key, uv(first) + uv(len(strs)) + b"".join(bytes_(x) for x in strs))
    elif op == "sites":
        key, first, sites = args
        out += block(8, key, uv(first) + uv(len(sites)) + b"".join(
            uv(fl or 0) + uv(line) + uv(cat or 0) + uv(label or 0) + sv(repo)
            for fl, line, cat, label, repo in sites))
    elif op == "thread":
        key, tid, name = args
        out += block(3, key, uv(tid) + bytes_(name))
    elif op == "events":
        key, thread, base_time, base_t_abs, records = args
        out += block(4, key, events(thread, base_time, base_t_abs, records))
    elif op == "tz":
        key, time, offset = args
        out += block(5, key, struct.pack("<Qi", time, offset))
    elif op == "dropped":
        key, thread, count = args
        out += block(6, key, uv(thread) + uv(count))
    elif op == "end":
        key, reason = args
        out += block(7, key, bytes([reason]))
    elif op == "block":
        btype, key, payload = args
        out += block(btype, key, bytes.fromhex(payload))
    elif op == "raw":
        out += bytes.fromhex(args[0])
    elif op == "cut":
        del out[args[0]:]
    else:
        raise ValueError("unknown step %r" % (op,))


def encode(steps):
    out = bytearray()
    for s in steps:
        step(out, s)
    return bytes(out)


def main(argv_):
    if len(argv_) != 3:
        sys.exit(__doc__)
    src = sys.stdin if argv_[1] == "-" else open(argv_[1])
    data = encode(ast.literal_eval(src.read()))
    if argv_[2] == "-":
        sys.stdout.buffer.write(data)
    else:
        with open(argv_[2], "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main(sys.argv)
