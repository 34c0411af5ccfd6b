#!/usr/bin/env python3
"""bench.py -- the real-program benchmark's rounds and table (run.sh
builds the programs and calls this).

usage: bench.py REAL_DIR WORKLOAD ROUNDS RUNS [VARIANT...]
  VARIANT: plain wrapped perf deferred record record_wait stats lttng
  (default: all but stats and lttng; record drops what a full ring cannot
  take, as by default, record_wait waits for the writer instead).  RUNS rounds; each runs every variant once, in an
  order rotated by one each round, as a fresh process in a clean
  environment (env -i: PATH, an empty HOME, GIT_CONFIG_NOSYSTEM=1,
  LC_ALL=C, TZ and GIT_TRACE2_RING_FULL when set, and the variant's
  target: a regular file under REAL_DIR/out, on the disk build/ is on,
  deleted after every run).  Per run: wall time, CPU (user + sys of the
  program from wait4(); for lttng plus what the session and consumer
  daemons spent meanwhile, from /proc), bytes written.  Prints medians,
  their ratios to the unwrapped program's, pairs per second, and the
  issue's goals with PASS or MISS (the work's rate in pairs per CPU
  second of the unwrapped program, steadier than wall time on a busy
  machine).
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

GOALS = [("record", "wall", 1.15), ("record", "cpu", 1.3),
         ("record_wait", "wall", 1.15), ("record_wait", "cpu", 1.3),
         ("stats", "wall", 1.2)]
MIN_PAIRS_PER_S = 1e6
TICK = os.sysconf("SC_CLK_TCK")


def variant_env(name, out):
    """The variant's program and its target settings."""
    env = {"PATH": os.environ["PATH"], "HOME": os.path.join(out, "home"),
           "XDG_CONFIG_HOME": os.path.join(out, "home", ".config"),
           "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"}
    for v in ("TZ", "GIT_TRACE2_RING_FULL", "LTTNG_HOME"):
        if v in os.environ:
            env[v] = os.environ[v]
    dest = os.path.join(out, "trace." + name)
    targets = {
        "plain": {}, "wrapped": {}, "lttng": {},
        "perf": {"GIT_TRACE2_PERF": dest},
        "deferred": {"GIT_TRACE2_PERF": dest, "GIT_TRACE2_DEFERRED": "1"},
        "record": {"GIT_TRACE2_RECORD": dest},
        "record_wait": {"GIT_TRACE2_RECORD": dest, "GIT_TRACE2_RING_FULL": "wait"},
        "stats": {"GIT_TRACE2_STATS": dest},
    }
    env.update(targets[name])
    env["LUA_WRAP_PAIRS"] = os.path.join(out, "pairs")
    prog = {"plain": "plain", "lttng": "lttng"}.get(name, "trace2")
    return prog, env


def lttng_daemon_pids():
    """The lttng-sessiond and lttng-consumerd processes running."""
    pids = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/comm" % p) as f:
                if f.read().strip() in ("lttng-sessiond", "lttng-consumerd"):
                    pids.append(p)
        except OSError:
            pass
    return pids


def cpu_of(pids):
    """user + sys seconds the processes have spent so far."""
    total = 0
    for p in pids:
        try:
            with open("/proc/%s/stat" % p) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / TICK


def lttng(*args):
    r = subprocess.run(["lttng"] + list(args), capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("bench-real: lttng %s failed: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout + r.stderr


def timed(cmd, env):
    """wall seconds, CPU seconds of one run (its stdout checked later)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE)
    stdout = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("bench-real: %s exited %d" % (" ".join(cmd), p.returncode))
    return wall, ru.ru_utime + ru.ru_stime, stdout


def run_once(name, real, workload, rounds):
    out = os.path.join(real, "out")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "home"))
    prog, env = variant_env(name, out)
    cmd = [os.path.join(real, prog, "lua"), workload, str(rounds)]
    trace_dir = os.path.join(out, "lttng-trace")
    extra_cpu, note = 0.0, ""
    if name == "lttng":
        lttng("create", "libtrace2-real", "--output=" + trace_dir)
        lttng("enable-event", "-u", "lua_wrap:*")
        lttng("start")
        pids = lttng_daemon_pids()
        before = cpu_of(pids)
    wall, cpu, stdout = timed(cmd, env)
    if name == "lttng":
        said = lttng("stop")
        extra_cpu = cpu_of(pids) - before
        lttng("destroy")
        note = " ".join(l.strip() for l in said.splitlines() if "discarded" in l or "lost" in l)
    written = 0
    for d, _, files in os.walk(out):
        if d.startswith(os.path.join(out, "home")):
            continue
        written += sum(os.path.getsize(os.path.join(d, f))
                       for f in files if f != "pairs")
    pairs = 0
    if os.path.exists(env["LUA_WRAP_PAIRS"]):
        with open(env["LUA_WRAP_PAIRS"]) as f:
            pairs = int(f.read())
    shutil.rmtree(out, ignore_errors=True)
    return {"wall": wall, "cpu": cpu + extra_cpu, "bytes": written,
            "pairs": pairs, "stdout": stdout, "note": note}


def verdicts(med):
    lines = []
    rate = med["wrapped"]["pairs"] / med["plain"]["cpu"]
    lines.append("%-34s %8.2f M/s  %s" % (
        "work: pairs per CPU s, unwrapped >= 1 M", rate / 1e6,
        "PASS" if rate >= MIN_PAIRS_PER_S else "MISS"))
    for variant, what, limit in GOALS:
        if variant not in med:
            lines.append("%-34s %s" % ("%s %s <= %.2f x" % (variant, what, limit),
                                        "   skipped (variant not run)"))
            continue
        x = med[variant][what] / med["plain"][what]
        lines.append("%-34s %8.2f x    %s" % ("%s %s <= %.2f x" % (variant, what, limit),
                                               x, "PASS" if x <= limit else "MISS"))
    return lines


def main():
    real, workload, rounds, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    variants = sys.argv[5:] or ["plain", "wrapped", "perf", "deferred", "record",
                                "record_wait"]
    results = {v: [] for v in variants}
    for r in range(runs):
        k = r % len(variants)
        for v in variants[k:] + variants[:k]:
            results[v].append(run_once(v, real, workload, rounds))
    outputs = {res["stdout"] for rs in results.values() for res in rs}
    if len(outputs) != 1:
        sys.exit("bench-real: the variants printed different results: %r" % outputs)
    med = {v: {m: statistics.median(res[m] for res in rs)
               for m in ("wall", "cpu", "bytes", "pairs")}
           for v, rs in results.items()}
    med["wrapped"]["pairs"] = max(med[v]["pairs"] for v in med)
    pairs = med["wrapped"]["pairs"]
    print("lua5.4 %s %d: %d pairs; medians of %d rounds, variants rotated each round"
          % (os.path.basename(workload), rounds, pairs, runs))
    print("%-11s %8s %7s %8s %7s %9s %12s" % ("variant", "wall s", "x wall", "cpu s",
                                            "x cpu", "Mpairs/s", "bytes"))
    for v in variants:
        m = med[v]
        print("%-11s %8.3f %7.2f %8.3f %7.2f %9.2f %12d" % (
            v, m["wall"], m["wall"] / med["plain"]["wall"], m["cpu"],
            m["cpu"] / med["plain"]["cpu"], pairs / m["wall"] / 1e6, m["bytes"]))
    for v in variants:
        notes = sorted({res["note"] for res in results[v] if res["note"]})
        if notes:
            print("%s: %s" % (v, "; ".join(notes)))
    print("goals (same-run medians):")
    for line in verdicts(med):
        print("  " + line)


if __name__ == "__main__":
    main()
