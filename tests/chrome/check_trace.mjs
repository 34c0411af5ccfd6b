// Load traces of the chrome target, or of trace2 convert --to chrome, in
// Chrome DevTools' trace engine (npm @paulirish/trace_engine, pinned in
// package-lock.json) exactly as they were written, and print what it
// made of them, one fact per line:
//
//   file <path> <events> <form>   form: array, object, or unterminated (an
//                                 array without its closing "]")
//   process <pid> <name>
//   thread <pid> <tid> <name>
//   slice <pid> <tid> <depth> <ts> <dur> <name>     (in time order per thread)
//   flow <pid> <tid> <ts> -> <pid> <tid> <ts>        (the slices it links, in time order)
//   mismatch <the engine's message>                  (unbalanced B/E)
//   engine-error <any other message the engine printed, or what it threw>
//   total <slices> slices <flows> flows <mismatches> mismatches <errors> engine-errors
//
// usage: node check_trace.mjs FILE|DIR...   (a directory: all its files,
// in name order)
//
// The events go to the engine in the order the file holds them: nothing
// regrouped, sorted or moved; several files follow one another, as when
// a user joins a directory target's files into one.  A file is read the
// way a viewer reads it: the object form {"traceEvents":[...]} and a
// closed array are strict JSON.  The array the chrome target writes while
// processes append to it ends in ",\n" without its "]".  speedscope's
// importer accepts that (it drops the trailing comma and closes the
// array), and so does this script; DevTools' Performance panel parses a
// file it opens as strict JSON and refuses it.  The "unterminated" form
// says which files only such forgiving viewers open.
import fs from 'node:fs';
import {traceFiles} from './files.mjs';
import {polyfillDOMRect} from '@paulirish/trace_engine/analyze-trace.mjs';
import * as Trace from '@paulirish/trace_engine';

polyfillDOMRect();

function readEvents(file) {
  const text = fs.readFileSync(file, 'utf8');
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? [v, 'array'] : [v.traceEvents, 'object'];
  } catch (strict) {
    const t = text.trim();
    if (t[0] !== '[' || t.endsWith(']'))
      throw new Error(`${file}: not JSON: ${strict.message}`);
    return [JSON.parse(t.replace(/,\s*$/, '') + ']'), 'unterminated'];
  }
}

const messages = [];
const print = console.log.bind(console);
for (const k of ['log', 'warn', 'error', 'info', 'debug'])
  console[k] = (...a) => messages.push(a.map(String).join(' '));

const out = [];
const events = [];
for (const f of traceFiles(process.argv.slice(2))) {
  const [ev, form] = readEvents(f);
  out.push(`file ${f} ${ev.length} ${form}`);
  events.push(...ev);
}

let data = null;
try {
  const model = Trace.TraceModel.Model.createWithAllHandlers();
  await model.parse(events);
  const parsed = model.parsedTrace();
  data = parsed.data ?? parsed;
} catch (e) {
  messages.push(`the engine threw: ${e?.stack ?? e}`.split('\n').slice(0, 3).join(' | '));
}

let slices = 0, flows = 0;
if (data) {
  for (const [pid, name] of data.Meta.processNames)
    out.push(`process ${pid} ${name.args?.name}`);
  for (const t of Trace.Handlers.Threads.threadsInTrace(data)) {
    out.push(`thread ${t.pid} ${t.tid} ${t.name}`);
    for (const e of t.entries) {
      if (e.dur === undefined) continue;
      const node = t.entryToNode.get(e);
      out.push(`slice ${t.pid} ${t.tid} ${node ? node.depth : '?'} ${e.ts} ${e.dur} ${e.name}`);
      slices++;
    }
  }
  // The engine lists a flow's slices in the order it met them in the
  // array, not from the flow's start to its end; it links an "s" only to
  // a later "f", so in time order the start comes first.
  for (const f of data.Flows.flows) {
    const ends = [...f].sort((a, b) => a.ts - b.ts).map(e => `${e.pid} ${e.tid} ${e.ts}`);
    out.push(`flow ${ends.join(' -> ')}`);
    flows++;
  }
}
const isMismatch = m => /Begin\/End events mismatch/.test(m);
for (const m of messages)
  out.push((isMismatch(m) ? 'mismatch ' : 'engine-error ') + m);
const mismatches = messages.filter(isMismatch).length;
out.push(`total ${slices} slices ${flows} flows ${mismatches} mismatches ` +
         `${messages.length - mismatches} engine-errors`);
print(out.join('\n'));
