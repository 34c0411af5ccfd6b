// Load traces of the chrome target in Chrome DevTools' trace engine
// (npm @paulirish/trace_engine, pinned in package-lock.json) and print
// what it made of them, one fact per line:
//
//   process <pid> <name>
//   slice <pid> <tid> <depth> <ts> <dur> <name>     (in time order per thread)
//   thread <pid> <tid> <name>
//   flow <pid> <tid> <ts> -> <pid> <tid> <ts>        (the slices it links, in time order)
//   mismatch <the engine's message>                  (unbalanced B/E)
//   engine-error <any other message the engine printed>
//   file-order <f> <m>   (given the events in file order, the engine finds
//                         f flows and prints m begin/end mismatches)
//
// usage: node check_trace.mjs FILE|DIR...   (a directory: all its files)
//
// A file is the JSON array as the target writes it: "[", then one event
// per line ending in ","; the closing "]" may be missing.  Or the object
// form {"traceEvents":[...]} that trace2 convert --to chrome writes.
//
// The Trace Event Format does not require events in time order, and this
// engine does not sort them before it pairs them: it pairs every E with
// the last open B of the whole array, whatever their pid and tid, and it
// links a flow only when its "s" comes before its "f".  So, like a loader
// that keeps one stream per thread, the script hands the engine each
// thread's events together (grouped by pid and tid, each group in ts
// order, stable), then the flow events in ts order.  What the engine makes
// of the events in file order is reported on the file-order line.
import fs from 'node:fs';
import path from 'node:path';
import {polyfillDOMRect} from '@paulirish/trace_engine/analyze-trace.mjs';
import * as Trace from '@paulirish/trace_engine';

polyfillDOMRect();

function readEvents(file) {
  const text = fs.readFileSync(file, 'utf8');
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v : v.traceEvents; // the object form
  } catch {
    // the array without its closing bracket
    return JSON.parse(text.replace(/,\s*$/, '') + ']');
  }
}

function files(args) {
  const out = [];
  for (const a of args) {
    if (fs.statSync(a).isDirectory())
      for (const f of fs.readdirSync(a).sort()) out.push(path.join(a, f));
    else
      out.push(a);
  }
  return out;
}

const messages = [];
const print = console.log.bind(console);
for (const k of ['log', 'warn', 'error', 'info', 'debug'])
  console[k] = (...a) => messages.push(a.map(String).join(' '));

async function load(events) {
  const model = Trace.TraceModel.Model.createWithAllHandlers();
  await model.parse(events);
  const parsed = model.parsedTrace();
  return parsed.data ?? parsed;
}

const events = [];
for (const f of files(process.argv.slice(2))) events.push(...readEvents(f));

// what the engine does with the events as written
const asWritten = await load(events.map(e => ({...e})));
const fileOrder = `file-order ${asWritten.Flows.flows.length} ` +
  messages.filter(m => /Begin\/End events mismatch/.test(m)).length;
messages.length = 0;

const isFlow = e => e.ph === 's' || e.ph === 't' || e.ph === 'f';
const key = (e, i) => isFlow(e) ? [1, 0, 0, e.ts ?? 0, i] : [0, e.pid, e.tid, e.ts ?? 0, i];
const sorted = events.map((e, i) => [key(e, i), e])
  .sort((a, b) => {
    for (let k = 0; k < a[0].length; k++)
      if (a[0][k] !== b[0][k]) return a[0][k] < b[0][k] ? -1 : 1;
    return 0;
  })
  .map(([, e]) => e);
const data = await load(sorted);
const out = [];
for (const [pid, name] of data.Meta.processNames)
  out.push(`process ${pid} ${name.args?.name}`);
for (const t of Trace.Handlers.Threads.threadsInTrace(data)) {
  out.push(`thread ${t.pid} ${t.tid} ${t.name}`);
  for (const e of t.entries) {
    if (e.dur === undefined) continue;
    const node = t.entryToNode.get(e);
    out.push(`slice ${t.pid} ${t.tid} ${node ? node.depth : '?'} ${e.ts} ${e.dur} ${e.name}`);
  }
}
// The engine lists a flow's slices in the order it met them in the array,
// here by pid (a child's pid may be below its parent's: pids wrap), not
// from the flow's start to its end.  It links an "s" only to a later "f"
// (an "f" before its "s" starts nothing, and two ends at one ts are one
// slice, no flow), so in time order the start comes first.
for (const f of data.Flows.flows) {
  const ends = [...f].sort((a, b) => a.ts - b.ts).map(e => `${e.pid} ${e.tid} ${e.ts}`);
  out.push(`flow ${ends.join(' -> ')}`);
}
for (const m of messages)
  out.push((/Begin\/End events mismatch/.test(m) ? 'mismatch ' : 'engine-error ') + m);
out.push(fileOrder);
print(out.join('\n'));
