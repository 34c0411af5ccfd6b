#!/usr/bin/env python3
"""Compare a recording, read by decode.py, with the event target's log of
the same run (GIT_TRACE2_EVENT_NESTING high enough to keep everything):
every event line must be a record of the same thread of the same process
(SID), in the same order within that thread, with the same time, location and values.

usage: same_as_event.py DECODED_JSONL EVENT_LOG
"""
import datetime
import json
import sys

# event-format key -> the decoder's field name, where they differ
RENAME = {"child_id": "id", "exec_id": "id", "count": "value", "ancestry": "names",
          "t_total": "total_ns", "t_min": "min_ns", "t_max": "max_ns", "signo": "signo"}
# keys of an event line that are not fields of a record
SKIP = {"event", "sid", "thread", "time", "file", "line", "t_abs", "t_rel", "evt",
        "nesting", "repo"}
SECONDS_NS = {"t_total", "t_min", "t_max"}


def utc_us(text):
    d = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")
    d = d.replace(tzinfo=datetime.timezone.utc)
    return int(d.timestamp()) * 1000000 + d.microsecond


def fail(msg, ev, rec):
    sys.exit("same_as_event: %s\n  event:  %s\n  record: %s" % (msg, json.dumps(ev), json.dumps(rec)))


def check(ev, rec):
    if rec["event"] != ev["event"]:
        fail("another event", ev, rec)
    if utc_us(ev["time"]) != rec["time"]:
        fail("another time", ev, rec)
    # a record without a location: the target prints a fixed one of its own
    if rec["file"] is not None and (ev.get("file") != rec["file"] or
                                    ev.get("line", 0) != rec["line"]):
        fail("another location", ev, rec)
    for key in ("t_abs", "t_rel"):
        if key in ev and round(ev[key] * 1e6) != rec[key]:
            fail("another " + key, ev, rec)
    if "nesting" in ev and ev["nesting"] != rec["nesting"]:
        fail("another nesting", ev, rec)
    if "repo" in ev and ev["repo"] != rec["repo"]:
        fail("another repo", ev, rec)
    for key, value in ev.items():
        if key in SKIP:
            continue
        got = rec.get(RENAME.get(key, key), "<missing>")
        if key in SECONDS_NS:  # printed as ns / 1e9 with %.6f
            value = round(value * 1e6)
            got = round(float("%.6f" % (got / 1e9)) * 1e6)
        if key == "value" and ev["event"] == "data_json":
            got = json.loads(rec["json"])
        elif key == "value" and not isinstance(value, str):
            value = str(value)
        elif key == "use_shell":
            got = bool(got)
        elif key == "child_class" and got is None:
            got = "?"  # the event format's unknown class
        if got != value:
            fail("another " + key, ev, rec)


def main():
    records = [json.loads(l) for l in open(sys.argv[1])]
    by_thread = {}
    for r in records:
        if "dropped" in r:
            sys.exit("same_as_event: the recording dropped records")
        by_thread.setdefault((r["sid"], r["thread"]), []).append(r)
    events = [json.loads(l) for l in open(sys.argv[2])]
    seen = {}
    for ev in events:
        t = (ev["sid"], ev["thread"])
        i = seen.get(t, 0)
        if i >= len(by_thread.get(t, [])):
            fail("no record left on thread %s of %s" % (t[1], t[0]), ev, None)
        check(ev, by_thread[t][i])
        seen[t] = i + 1
    left = sum(len(v) for v in by_thread.values()) - sum(seen.values())
    if left:
        sys.exit("same_as_event: %d records more than events" % left)
    print("same_as_event: %d events, %d threads" % (len(events), len(by_thread)))


if __name__ == "__main__":
    main()
