// What a timeline of an event-format log must show, worked out from the
// log alone (not from any converter), one fact per line, sorted:
//
//   slice <pid> <thread> <depth> <ts> <dur> <name>
//   flow <pid> <thread> <ts> -> <pid> <thread> <ts>
//
// pid: the SID's own "-P<hex>"; thread: the thread's name ("main",
// "th01:worker") or "child #<id>" for a child's track; depth: 0 for the
// process slice (version to its last atexit, on main: a process that
// detaches writes records after its first), regions below it (on other
// threads regions start at 0); ts, dur: microseconds since the epoch of
// the records' "time" (a child: child_exit's time minus its t_rel); a
// slice shorter than a microsecond lasts 0.001 (docs/targets.md).
// A flow links a child's slice to the child process's slice when the
// child_exit's pid is the pid of a process whose SID extends the
// parent's; for a child started with use_shell (the pid is the shell's),
// to the one such process not linked yet whose cmd_ancestry starts with
// a shell and that started within the child's time, if there is one.  The shell test compares this with check_trace.mjs's output.
//
// usage: node expect_events.mjs FILE|DIR...
import fs from 'node:fs';
import {traceFiles} from './files.mjs';

function micros(time) {
  const m = /^(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)\.(\d{6})Z$/.exec(time);
  if (!m) throw new Error(`bad time ${time}`);
  const [y, mo, d, h, mi, s, us] = m.slice(1).map(Number);
  return Date.UTC(y, mo - 1, d, h, mi, s) * 1000 + us;
}

// The target keeps 79 bytes of a slice's name, 159 of a child's command
// line (docs/targets.md); the logs here are ASCII.
const cut = (s, n) => s.length > n ? s.slice(0, n) : s;
const dur = us => us > 0 ? us : 0.001;
const pidOf = sid => parseInt(/-P([0-9a-f]+)$/.exec(sid.split('/').pop())[1], 16);

const files = traceFiles(process.argv.slice(2));

const out = [];
const stacks = new Map();   // sid + thread -> open regions
const procs = new Map();    // sid -> {version ts}
const ends = new Map();     // sid -> the last atexit's ts
const childExits = [];      // {sid, id, pid, begin}
const childStarts = new Map();
const underShell = new Set(); // SIDs whose cmd_ancestry starts with a shell
const shells = new Set(['sh', 'dash', 'bash', 'zsh', 'ksh', 'mksh', 'ash']);
for (const f of files) {
  for (const line of fs.readFileSync(f, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    const e = JSON.parse(line);
    const pid = pidOf(e.sid);
    const key = `${e.sid}\n${e.thread}`;
    const stack = stacks.get(key) ?? [];
    stacks.set(key, stack);
    const base = e.thread === 'main' ? 1 : 0;
    switch (e.event) {
    case 'version':
      procs.set(e.sid, micros(e.time));
      break;
    case 'atexit':
      ends.set(e.sid, micros(e.time));
      break;
    case 'region_enter':
      stack.push({ts: micros(e.time), name: cut(e.label || e.msg || 'region', 79)});
      break;
    case 'region_leave': {
      const r = stack.pop();
      out.push(`slice ${pid} ${e.thread} ${base + stack.length} ${r.ts} ` +
               `${dur(micros(e.time) - r.ts)} ${r.name}`);
      break;
    }
    case 'child_exit': {
      const t_rel = Math.round(e.t_rel * 1e6);
      const begin = micros(e.time) - t_rel;
      const start = childStarts.get(`${e.sid}\n${e.child_id}`);
      childExits.push({sid: e.sid, pid: e.pid, id: e.child_id, begin,
                       end: micros(e.time), shell: start.use_shell});
      const argv = cut((start.argv ?? []).join(' ') || 'child', 159);
      out.push(`slice ${pid} child #${e.child_id} 0 ${begin} ${dur(t_rel)} ${argv}`);
      break;
    }
    case 'cmd_ancestry':
      if (shells.has(e.ancestry?.[0])) underShell.add(e.sid);
      break;
    case 'child_start':
      childStarts.set(`${e.sid}\n${e.child_id}`, e);
      break;
    }
  }
}
for (const [sid, end] of ends)
  out.push(`slice ${pidOf(sid)} main 0 ${procs.get(sid)} ${dur(end - procs.get(sid))} process`);
const linked = new Set();
const parentOf = sid => sid.slice(0, Math.max(sid.lastIndexOf('/'), 0));
for (const c of childExits) {
  let kids = [...procs].filter(([sid]) => parentOf(sid) === c.sid && pidOf(sid) === c.pid);
  if (!kids.length && c.shell) {
    kids = [...procs].filter(([sid, ts]) => parentOf(sid) === c.sid && underShell.has(sid) &&
                             !linked.has(sid) && ts >= c.begin && ts <= c.end);
    if (kids.length > 1) kids = [];
  }
  for (const [sid, ts] of kids) {
    linked.add(sid);
    out.push(`flow ${pidOf(c.sid)} child #${c.id} ${c.begin} -> ${pidOf(sid)} main ${ts}`);
  }
}
console.log(out.sort().join('\n'));
