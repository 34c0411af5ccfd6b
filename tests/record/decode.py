#!/usr/bin/env python3
"""A reader of recordings written from docs/record-format.md alone, for
the tests: it shares no code with the library or the trace2 command.

usage: decode.py FILE...   one JSON object per record on stdout:
  {"pid", "sid", "thread", "event", "time", "t_abs", "t_rel", "nesting",
   "file", "line", "tz", plus the kind's fields by name}
and one {"dropped": N, "thread": NAME} per DROPPED block.  A site record
gives the object of the full region record it stands for (msg null).
Exits 1 with a message on anything the format does not allow.
"""
import json
import struct
import sys

MAGIC = bytes([0x89, 0x54, 0x32, 0x52, 0x0D, 0x0A, 0x1A, 0x0A])
VERSION = 2

CHILD = [("sv", "id"), ("sv", "pid"), ("str", "child_class"), ("str", "hook_name"),
         ("str", "cd"), ("argv", "argv"), ("sv", "git_cmd"), ("sv", "use_shell"),
         ("sv", "code"), ("str", "ready")]
EXEC = [("sv", "id"), ("str", "exe"), ("argv", "argv"), ("sv", "code")]
REGION = [("istr", "category"), ("istr", "label"), ("sv", "repo"), ("str", "msg")]
REGION_KINDS = (22, 23)  # region_enter, region_leave: the kinds of site records
HEAD_SITE = 0x80
HEAD_T_REL = 0x40
TIMER = [("istr", "category"), ("istr", "name"), ("uv", "intervals"), ("uv", "total_ns"),
         ("uv", "min_ns"), ("uv", "max_ns")]
COUNTER = [("istr", "category"), ("istr", "name"), ("uv", "value")]
KINDS = {
    1: ("version", [("str", "exe")]),
    2: ("too_many_files", []),
    3: ("start", [("argv", "argv")]),
    4: ("exit", [("sv", "code")]),
    5: ("signal", [("sv", "signo")]),
    6: ("atexit", [("sv", "code")]),
    7: ("error", [("str", "msg"), ("str", "fmt")]),
    8: ("cmd_path", [("str", "path")]),
    9: ("cmd_ancestry", [("argv", "names")]),
    10: ("cmd_name", [("str", "name"), ("str", "hierarchy")]),
    11: ("cmd_mode", [("str", "name")]),
    12: ("alias", [("str", "alias"), ("argv", "argv")]),
    13: ("child_start", CHILD),
    14: ("child_exit", CHILD),
    15: ("child_ready", CHILD),
    16: ("thread_start", []),
    17: ("thread_exit", []),
    18: ("exec", EXEC),
    19: ("exec_result", EXEC),
    20: ("def_param", [("str", "param"), ("str", "value"), ("str", "scope")]),
    21: ("def_repo", [("sv", "repo"), ("str", "worktree")]),
    22: ("region_enter", REGION),
    23: ("region_leave", REGION),
    24: ("data", [("istr", "category"), ("sv", "repo"), ("istr", "key"), ("str", "value")]),
    25: ("data_json", [("istr", "category"), ("sv", "repo"), ("istr", "key"),
                       ("str", "json"), ("u8", "pretty"), ("u8", "open")]),
    26: ("printf", [("str", "msg")]),
    27: ("timer", TIMER),
    28: ("th_timer", TIMER),
    29: ("counter", COUNTER),
    30: ("th_counter", COUNTER),
}


class Bad(Exception):
    pass


class Cursor:
    def __init__(self, data):
        self.d = data
        self.i = 0

    def left(self):
        return len(self.d) - self.i

    def take(self, n):
        if n > self.left():
            raise Bad("cut")
        b = self.d[self.i:self.i + n]
        self.i += n
        return b

    def u8(self):
        return self.take(1)[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def i32(self):
        return struct.unpack("<i", self.take(4))[0]

    def uv(self):
        v = 0
        for k in range(10):
            b = self.u8()
            v |= (b & 0x7F) << (7 * k)
            if not b & 0x80:
                if v >= 1 << 64:
                    raise Bad("varint over 64 bits")
                return v
        raise Bad("varint over 10 bytes")

    def sv(self):
        v = self.uv()
        return (v >> 1) ^ -(v & 1)

    def bytes_(self):
        return self.take(self.uv())

    def str_(self):
        n = self.uv()
        return None if n == 0 else self.take(n - 1)


def text(b):
    return None if b is None else b.decode("utf-8", "surrogateescape")


class Process:
    def __init__(self):
        self.strings = {}
        self.sites = []  # per entry: the region fields it stands for
        self.threads = {}
        self.tz = []
        self.info = None


def decode(path, out):
    data = open(path, "rb").read()
    if data[:8] != MAGIC:
        raise Bad("%s: not a recording" % path)
    version, flags, zero = struct.unpack("<HHI", data[8:16])
    if version != VERSION or flags or zero:
        raise Bad("%s: format version %d flags %d" % (path, version, flags))
    procs = {}
    c = Cursor(data)
    c.i = 16
    while c.left():
        if c.left() < 16:
            raise Bad("%s: cut block head" % path)
        btype, z1, z2, length, key = struct.unpack("<BBHIQ", c.take(16))
        if c.left() < length:
            raise Bad("%s: cut block" % path)
        b = Cursor(c.take(length))
        p = procs.setdefault(key, Process())
        if btype == 1:
            sid = text(b.str_())
            pid = b.uv()
            start = b.u64()
            ver = text(b.str_())
            unit = b.uv()
            if unit != 1:
                raise Bad("unit %d" % unit)
            p.info = {"sid": sid, "pid": pid, "start": start, "version": ver}
        elif p.info is None:
            raise Bad("block %d before PROCESS" % btype)
        elif btype == 2:
            first = b.uv()
            count = b.uv()
            if first != len(p.strings) + 2:
                raise Bad("strings from %d, expected %d" % (first, len(p.strings) + 2))
            for k in range(count):
                p.strings[first + k] = b.bytes_()
        elif btype == 8:
            sites(p, b)
        elif btype == 3:
            tid = b.uv()
            p.threads[tid] = text(b.bytes_())
        elif btype == 5:
            p.tz.append((b.u64(), b.i32()))
        elif btype == 6:
            tid = b.uv()
            out.append({"pid": p.info["pid"], "thread": p.threads[tid], "dropped": b.uv()})
        elif btype == 7:
            b.u8()
        elif btype == 4:
            events(p, b, out)
        else:
            continue  # a block type of a later version: skipped
        if btype != 4 and b.left():
            raise Bad("block %d: %d bytes left" % (btype, b.left()))


def table_string(p, n):
    if n not in p.strings:
        raise Bad("string %d not defined" % n)
    return text(p.strings[n])


def site_string(p, n):
    return None if n == 0 else table_string(p, n)


def sites(p, b):
    first = b.uv()
    count = b.uv()
    if first != len(p.sites):
        raise Bad("sites from %d, expected %d" % (first, len(p.sites)))
    for _ in range(count):
        site = {"file": site_string(p, b.uv()), "line": b.uv()}
        site["category"] = site_string(p, b.uv())
        site["label"] = site_string(p, b.uv())
        site["repo"] = b.sv()
        site["msg"] = None
        p.sites.append(site)


def offset_at(p, t):
    off = None
    for since, o in p.tz:
        if since <= t:
            off = o
    if off is None:
        raise Bad("no TZ block for %d" % t)
    return off


def field(p, b, kind):
    if kind == "str":
        return text(b.str_())
    if kind == "istr":
        n = b.uv()
        if n == 0:
            return None
        if n == 1:
            return text(b.bytes_())
        return table_string(p, n)
    if kind == "sv":
        return b.sv()
    if kind == "uv":
        return b.uv()
    if kind == "u8":
        return b.u8()
    if kind == "argv":
        n = b.uv()
        return None if n == 0 else [text(b.bytes_()) for _ in range(n - 1)]
    raise Bad(kind)


def record_head(b, head, state, dt_abs):
    """The fields both forms of record start with: the times (a full
    record's dt_abs when dt_abs), nesting and t_rel."""
    dtime = b.sv()
    state["time"] += dtime
    state["t_abs"] += dtime + (b.sv() if dt_abs else 0)
    rec = {"event": KINDS[head & 0x3F][0], "time": state["time"], "t_abs": state["t_abs"],
           "nesting": b.uv()}
    rec["t_rel"] = b.uv() if head & HEAD_T_REL else 0
    return rec


def full_record(p, b, head, state):
    rec = record_head(b, head, state, True)
    rec["file"] = field(p, b, "istr")
    rec["line"] = b.uv()
    for ftype, fname in KINDS[head & 0x3F][1]:
        rec[fname] = field(p, b, ftype)
    return rec


def site_record(p, b, head, state):
    rec = record_head(b, head, state, False)
    site = b.uv()
    if site >= len(p.sites):
        raise Bad("site %d not defined" % site)
    rec.update(p.sites[site])
    return rec


def events(p, b, out):
    tid = b.uv()
    if tid not in p.threads:
        raise Bad("thread %d not named" % tid)
    state = {"time": b.u64(), "t_abs": b.u64()}
    while b.left():
        head = b.u8()
        kind = head & 0x3F
        if head & HEAD_SITE and kind in REGION_KINDS:
            rec = site_record(p, b, head, state)
        elif head & HEAD_SITE or kind not in KINDS:
            raise Bad("head %#x" % head)
        else:
            rec = full_record(p, b, head, state)
        # the process's pid first: a child record's own "pid" field wins
        whole = {"pid": p.info["pid"], "sid": p.info["sid"], "thread": p.threads[tid],
                 "tz": offset_at(p, rec["time"])}
        whole.update(rec)
        out.append(whole)


def main():
    out = []
    try:
        for path in sys.argv[1:]:
            decode(path, out)
    except Bad as e:
        sys.exit("decode.py: %s" % e)
    for r in out:
        print(json.dumps(r, sort_keys=True))


if __name__ == "__main__":
    main()
