// Check `trace2 convert --to otlp` output against the OTLP schema of npm
// @opentelemetry/otlp-transformer 0.57.2 (build/src/generated/root.js)
// and against the event logs it was made from.
//
// usage: node check_otlp.mjs --schema ROOT_JS [--traceparent TP] OTLP_FILE LOG...
//
// Per line: JSON; ids lowercase hex (32/16), 64-bit integers as decimal
// strings, enums as integers; ids converted to base64, then
// ExportTraceServiceRequest.fromObject(), .verify() (must be null),
// .toObject() and every key of the input must be in the output (no
// unknown or misspelled field); every span in the resource of its own
// process (trace2.sid).  Over the file: span ids unique, every
// parentSpanId a span of the file (or the traceparent's span), one
// trace per command tree (root SID), as many process, region and child
// spans as the logs have SIDs (and detached parts: records of a SID after
// its atexit), regions (region_enter records, and region_leave records
// without their enter in a detached part or in a thread of a process that
// started before its file) and child_start records, and the ids derived
// as docs/tools.md says (FNV-1a, recomputed here).
// Prints "check_otlp: ok ..." or the problems, exit status 1.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const args = process.argv.slice(2);
let schema = null, tp = null;
while (args.length && args[0].startsWith('--')) {
	const o = args.shift();
	if (o === '--schema') schema = args.shift();
	else if (o === '--traceparent') tp = args.shift();
	else { console.error(`check_otlp: unknown option ${o}`); process.exit(2); }
}
if (!schema || args.length < 2) {
	console.error('usage: check_otlp.mjs --schema ROOT_JS [--traceparent TP] OTLP_FILE LOG...');
	process.exit(2);
}
const require = createRequire(import.meta.url);
const root = require(schema);
const Req = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const problems = [];
const bad = (m) => { if (problems.length < 50) problems.push(m); };

// --- FNV-1a, as docs/tools.md specifies ---------------------------------
function fnv(bits, text) {
	const mod = 1n << BigInt(bits);
	let h = bits === 64 ? 0xcbf29ce484222325n : 0x6c62272e07bb014262b821756295c58dn;
	const p = bits === 64 ? 0x100000001b3n : 0x0000000001000000000000000000013bn;
	for (const b of Buffer.from(text, 'utf8')) h = ((h ^ BigInt(b)) * p) % mod;
	return h.toString(16).padStart(bits / 4, '0');
}
const sid64 = (t) => { const h = fnv(64, t); return /^0+$/.test(h) ? '0000000000000001' : h; };

// --- the event logs ------------------------------------------------------
const files = [];
for (const p of args.slice(1)) {
	if (statSync(p).isDirectory())
		for (const f of readdirSync(p).sort()) files.push(join(p, f));
	else files.push(p);
}
const sids = new Set(), roots = new Set();
const regionIds = new Set(), childExitIds = new Map(); // id -> [sid, pid]
const regionSeq = new Map(), open = new Map();
const exited = new Set(), detached = new Map(), mid = new Set();
const detachedIds = new Map(); // id -> sid
let nregion = 0, nchild = 0;
// A region span: its id from "<base>\n<thread>\n<N>", base the SID or,
// in a detached part, "<SID>\ndetached\n<K>".
function regionSpan(e) {
	nregion++;
	const d = detached.get(e.sid);
	const k = `${d ? `${e.sid}\ndetached\n${d}` : e.sid}\n${e.thread}`;
	const n = (regionSeq.get(k) || 0) + 1;
	regionSeq.set(k, n);
	regionIds.add(sid64(`${k}\n${n}`));
}
for (const f of files) {
	let first = true;
	for (const line of readFileSync(f, 'latin1').split('\n')) {
		if (!line.startsWith('{')) continue;
		let e;
		try { e = JSON.parse(Buffer.from(line, 'latin1').toString('utf8')); } catch { continue; }
		if (typeof e.sid !== 'string' || !e.sid) continue;
		if (!sids.has(e.sid) && e.event !== 'version' && first) mid.add(f);
		if (!sids.has(e.sid) && e.event !== 'version' && mid.has(f)) mid.add(e.sid);
		first = false;
		sids.add(e.sid);
		roots.add(e.sid.split('/')[0]);
		if (exited.has(e.sid)) { // it went on after its atexit
			exited.delete(e.sid);
			const d = (detached.get(e.sid) || 0) + 1;
			detached.set(e.sid, d);
			detachedIds.set(sid64(`${e.sid}\ndetached\n${d}`), e.sid);
		}
		const tk = `${e.sid}\n${e.thread}`;
		if (e.event === 'atexit') {
			exited.add(e.sid);
			for (const k of open.keys()) if (k.startsWith(`${e.sid}\n`)) open.set(k, 0);
		}
		if (e.event === 'region_enter') {
			open.set(tk, (open.get(tk) || 0) + 1);
			regionSpan(e);
		} else if (e.event === 'region_leave') {
			if (open.get(tk)) open.set(tk, open.get(tk) - 1);
			else if (detached.has(e.sid) || mid.has(e.sid)) regionSpan(e);
		} else if (e.event === 'child_start') {
			nchild++;
		} else if (e.event === 'child_exit') {
			const pid = (e.pid >>> 0).toString(16).padStart(8, '0');
			childExitIds.set(sid64(`${e.sid}\nchild\n${pid}`), [e.sid, pid]);
		}
	}
}

// --- the OTLP file -------------------------------------------------------
const INT64 = new Set(['startTimeUnixNano', 'endTimeUnixNano', 'timeUnixNano', 'intValue']);
const IDS = { traceId: 32, spanId: 16, parentSpanId: 16 };
// fromObject() converts what it gets (String(7)): the JSON types first.
const TYPES = { stringValue: 'string', name: 'string', key: 'string', version: 'string',
		message: 'string', traceState: 'string', schemaUrl: 'string',
		boolValue: 'boolean', doubleValue: 'number' };

// Check the JSON mapping's rules; return a copy with base64 ids.
function prepare(v, where) {
	if (Array.isArray(v)) return v.map((x, i) => prepare(x, `${where}[${i}]`));
	if (v === null || typeof v !== 'object') return v;
	const out = {};
	for (const [k, x] of Object.entries(v)) {
		const at = `${where}.${k}`;
		if (!/^[a-z][A-Za-z0-9]*$/.test(k)) bad(`${at}: not a lowerCamelCase field name`);
		if (k in IDS) {
			if (typeof x !== 'string' || !new RegExp(`^[0-9a-f]{${IDS[k]}}$`).test(x))
				bad(`${at}: not ${IDS[k]} lowercase hex digits: ${JSON.stringify(x)}`);
			else if (/^0+$/.test(x)) bad(`${at}: all zero`);
			out[k] = Buffer.from(String(x), 'hex').toString('base64');
		} else if (INT64.has(k)) {
			if (typeof x !== 'string' || !/^-?[0-9]+$/.test(x))
				bad(`${at}: a 64-bit integer must be a decimal string: ${JSON.stringify(x)}`);
			out[k] = x;
		} else if (k === 'kind' || k === 'code') {
			if (!Number.isInteger(x)) bad(`${at}: an enum must be an integer: ${JSON.stringify(x)}`);
			out[k] = x;
		} else {
			if (k in TYPES && typeof x !== TYPES[k])
				bad(`${at}: not a ${TYPES[k]}: ${JSON.stringify(x)}`);
			out[k] = prepare(x, at);
		}
	}
	return out;
}

// Every key of the input is a key of the schema's output.
function sameKeys(inp, outp, where) {
	if (Array.isArray(inp)) {
		if (!Array.isArray(outp) || outp.length !== inp.length) {
			bad(`${where}: array of ${inp.length} became ${JSON.stringify(outp)?.slice(0, 80)}`);
			return;
		}
		inp.forEach((x, i) => sameKeys(x, outp[i], `${where}[${i}]`));
		return;
	}
	if (inp === null || typeof inp !== 'object') return;
	if (outp === null || typeof outp !== 'object') { bad(`${where}: not a message of the schema`); return; }
	for (const k of Object.keys(inp)) {
		if (!(k in outp)) bad(`${where}.${k}: not a field of the schema`);
		else sameKeys(inp[k], outp[k], `${where}.${k}`);
	}
}

const spans = [];
const lines = readFileSync(args[0], 'utf8').split('\n');
if (lines[lines.length - 1] === '') lines.pop();
lines.forEach((line, i) => {
	const where = `line ${i + 1}`;
	let obj;
	try { obj = JSON.parse(line); } catch (e) { bad(`${where}: not JSON: ${e.message}`); return; }
	const before = problems.length;
	const prepared = prepare(obj, where);
	if (problems.length !== before) return;
	let msg;
	try { msg = Req.fromObject(prepared); } catch (e) { bad(`${where}: fromObject: ${e.message}`); return; }
	const err = Req.verify(msg);
	if (err !== null) { bad(`${where}: verify: ${err}`); return; }
	const back = Req.toObject(msg, { longs: String, enums: Number, bytes: String, defaults: true,
					 arrays: true, objects: true });
	sameKeys(prepared, back, where);
	for (const rs of obj.resourceSpans || []) {
		const res = (rs.resource?.attributes || []).find((x) => x.key === 'trace2.sid');
		for (const ss of rs.scopeSpans || [])
			for (const s of ss.spans || []) {
				spans.push(s);
				const sa = (s.attributes || []).find((x) => x.key === 'trace2.sid');
				if (res?.value?.stringValue !== sa?.value?.stringValue)
					bad(`${where}: span ${s.spanId} of ${sa?.value?.stringValue} under the resource of ${res?.value?.stringValue}`);
			}
	}
});

const attr = (s, k) => {
	const a = (s.attributes || []).find((x) => x.key === k);
	return a ? a.value.stringValue ?? a.value.intValue : undefined;
};
const byId = new Map();
for (const s of spans) {
	if (byId.has(s.spanId)) bad(`span ${s.spanId} twice`);
	byId.set(s.spanId, s);
	if (BigInt(s.startTimeUnixNano) > BigInt(s.endTimeUnixNano)) bad(`span ${s.spanId} ends before it starts`);
}
let tpTrace = null, tpSpan = null;
if (tp) [, tpTrace, tpSpan] = tp.split('-');
const count = { process: 0, region: 0, child: 0 };
const traces = new Set();
for (const s of spans) {
	const type = attr(s, 'trace2.span');
	if (!(type in count)) { bad(`span ${s.spanId}: trace2.span is ${type}`); continue; }
	count[type]++;
	traces.add(s.traceId);
	const sid = attr(s, 'trace2.sid');
	const rootSid = sid.split('/')[0];
	const wantTrace = tpTrace || fnv(128, rootSid);
	if (s.traceId !== wantTrace) bad(`span ${s.spanId}: traceId ${s.traceId}, expected ${wantTrace}`);
	if (s.parentSpanId !== undefined && !byId.has(s.parentSpanId) && s.parentSpanId !== tpSpan)
		bad(`span ${s.spanId} (${type} ${s.name}): parent ${s.parentSpanId} is not in the file`);
	if (type === 'process' &&
	    (s.attributes || []).some((x) => x.key === 'trace2.detached' && x.value.boolValue === true)) {
		if (detachedIds.get(s.spanId) !== sid)
			bad(`detached part of ${sid}: spanId ${s.spanId} is not derived from its SID`);
		if (s.parentSpanId !== sid64(sid))
			bad(`detached part of ${sid}: parentSpanId ${s.parentSpanId}, expected its process span`);
	} else if (type === 'process') {
		if (s.spanId !== sid64(sid)) bad(`process ${sid}: spanId ${s.spanId}, expected ${sid64(sid)}`);
		if (!sid.includes('/')) {
			if (tpSpan ? s.parentSpanId !== tpSpan : s.parentSpanId !== undefined)
				bad(`root process ${sid}: parentSpanId ${s.parentSpanId}`);
		} else {
			if (s.parentSpanId === undefined) { bad(`child process ${sid} has no parent`); continue; }
			const parentSid = sid.slice(0, sid.lastIndexOf('/'));
			const pid = sid.slice(sid.lastIndexOf('-P') + 2).padStart(8, '0');
			const want = sid64(`${parentSid}\nchild\n${pid}`);
			if (childExitIds.has(want) && s.parentSpanId !== want)
				bad(`child process ${sid}: parentSpanId ${s.parentSpanId}, expected its child span ${want}`);
			const parent = byId.get(s.parentSpanId);
			if (parent && attr(parent, 'trace2.sid') !== parentSid)
				bad(`child process ${sid}: parented on a span of ${attr(parent, 'trace2.sid')}`);
		}
	} else if (type === 'region') {
		if (!regionIds.has(s.spanId)) bad(`region ${s.name}: spanId ${s.spanId} is not derived from its SID, thread and sequence number`);
	} else if (type === 'child' && !attr(s, 'trace2.unfinished') && !childExitIds.has(s.spanId))
		bad(`child span ${s.name}: spanId ${s.spanId} is not derived from its SID and pid`);
}
if (count.process !== sids.size + detachedIds.size)
	bad(`${count.process} process spans for ${sids.size} SIDs and ${detachedIds.size} detached parts`);
if (count.region !== nregion) bad(`${count.region} region spans for ${nregion} regions`);
if (count.child !== nchild) bad(`${count.child} child spans for ${nchild} child_start records`);
const wantTraces = tp ? 1 : roots.size;
if (traces.size !== wantTraces) bad(`${traces.size} traces for ${wantTraces} command trees`);
if (!spans.length) bad('no spans');

if (problems.length) {
	for (const p of problems) console.log(`check_otlp: ${args[0]}: ${p}`);
	process.exit(1);
}
console.log(`check_otlp: ok: ${lines.length} lines, ${spans.length} spans (${count.process} processes, ` +
	    `${count.region} regions, ${count.child} children), ${traces.size} trace(s)`);
