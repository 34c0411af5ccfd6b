// Import traces of the chrome target, or of trace2 convert --to chrome,
// into speedscope (npm speedscope, pinned in package-lock.json) exactly as
// they were written, and print what it made of them, one fact per line:
//
//   file <path> <bytes>
//   importer <speedscope's own message: the format it took the file for>
//   profile <calls> <total weight> <name>   (calls: the frames it entered)
//   warning <any other message speedscope printed, or what it threw>
//   total <profiles> profiles <warnings> warnings
//
// usage: node check_speedscope.mjs FILE|DIR...   (each file imported on its
// own, a directory's in name order)
//
// speedscope is a web page: its bundle (dist/release/speedscope-*.js, the
// script index.html loads) ends by rendering the application into
// document.body.  This script reads the installed bundle, swaps that last
// render call for handing out the importer the page uses for a dropped or
// pasted file, importProfileGroupFromText(fileName, contents) (its module
// initialized as the page does when it first imports it), and runs it in
// Node with a small stand-in for the few DOM objects the bundle touches
// while it loads.  Each file is imported with its own name and its text
// as the file holds it; the importer itself decides the format and copes
// with an array left without its closing "]".
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import {createRequire} from 'node:module';
import {traceFiles} from './files.mjs';

const require = createRequire(import.meta.url);
const release = path.join(path.dirname(require.resolve('speedscope/package.json')),
                          'dist', 'release');

function fail(msg) {
  console.error(`check_speedscope.mjs: ${msg}`);
  process.exit(2);
}

// The one match of re in text, or a clear failure (another speedscope
// release may be built differently).
function only(text, re, what) {
  const all = [...text.matchAll(re)];
  if (all.length !== 1)
    fail(`${all.length} matches for ${what} in the speedscope bundle, expected 1`);
  return all[0];
}

function bundleWithImporter() {
  const html = fs.readFileSync(path.join(release, 'index.html'), 'utf8');
  const src = only(html, /<script src="(speedscope-[A-Za-z0-9]+\.js)">/g, 'the page\'s script')[1];
  const code = fs.readFileSync(path.join(release, src), 'utf8');
  // The importers are a module of the bundle, exported by name (the one
  // name minifying keeps) and initialized where the page first imports it:
  // var M={};export(M,{...,importProfileGroupFromText:()=>f,...}) and
  // Promise.resolve().then(()=>(init(),M)).
  const id = '[A-Za-z0-9_$]+';
  const module = only(code, new RegExp(`var (${id})=\\{\\};${id}\\(\\1,\\{[^}]*importProfileGroupFromText:\\(\\)=>`, 'g'),
                      'the importers\' module')[1];
  const init = only(code, new RegExp(`\\(\\(\\)=>\\((${id})\\(\\),${module.replace(/\$/g, '\\$')}\\)\\)`, 'g'),
                    'the importers\' initialization')[1];
  // the last statement: render(<App/>, document.body, ...)
  const render = only(code, /[A-Za-z0-9_$]+\([^;]*,document\.body,document\.body\.lastElementChild\|\|void 0\);(?=\}\)\(\);)/g,
                      'the final render call');
  return code.slice(0, render.index) +
         `globalThis.__speedscopeImport=(${init}(),${module}).importProfileGroupFromText;` +
         code.slice(render.index + render[0].length);
}

// What the bundle reaches for while it loads (styles, the theme, stored
// settings); nothing is drawn.
function domStandIn() {
  const element = () => ({
    style: {}, sheet: {insertRule() {}, cssRules: []}, childNodes: [],
    appendChild(c) { return c; }, insertBefore(c) { return c; }, removeChild(c) { return c; },
    setAttribute() {}, addEventListener() {}, removeEventListener() {},
    getContext() { return null; }, lastElementChild: null,
  });
  const document = {
    body: element(), head: element(), activeElement: null, title: '',
    createElement: element, createElementNS: element, createTextNode: element,
    getElementsByTagName: () => [element()], querySelector: () => null,
    addEventListener() {}, removeEventListener() {},
  };
  const storage = new Map();
  const window = {
    document, devicePixelRatio: 1, location: {hash: '', search: '', href: 'file:///'},
    localStorage: {getItem: k => storage.get(k) ?? null, setItem: (k, v) => storage.set(k, String(v)),
                   removeItem: k => storage.delete(k)},
    matchMedia: () => ({matches: false, addEventListener() {}, removeEventListener() {},
                        addListener() {}, removeListener() {}}),
    addEventListener() {}, removeEventListener() {},
    requestAnimationFrame: f => setTimeout(f, 0), cancelAnimationFrame: clearTimeout,
  };
  window.window = window;
  window.self = window;
  return window;
}

const files = traceFiles(process.argv.slice(2));
if (!files.length)
  fail('usage: node check_speedscope.mjs FILE|DIR...');
const code = bundleWithImporter();
const messages = [];
const print = console.log.bind(console);
for (const k of ['log', 'warn', 'error', 'info', 'debug'])
  console[k] = (...a) => messages.push([k, a.map(String).join(' ')]);
const win = domStandIn();
for (const k of Object.keys(win))
  if (!(k in globalThis)) globalThis[k] = win[k];
vm.runInThisContext(code, {filename: 'speedscope-bundle.js'});
const importProfileGroupFromText = globalThis.__speedscopeImport;
messages.length = 0; // the version banner

const out = [];
let profiles = 0, warnings = 0;
for (const f of files) {
  const text = fs.readFileSync(f, 'utf8');
  out.push(`file ${f} ${Buffer.byteLength(text)}`);
  let group = null;
  try {
    group = await importProfileGroupFromText(path.basename(f), text);
  } catch (e) {
    messages.push(['error', `the importer threw: ${e?.message ?? e}`]);
  }
  for (const [kind, m] of messages.splice(0)) {
    if (kind === 'log' && /^Importing as /.test(m)) {
      out.push(`importer ${m}`);
    } else {
      out.push(`warning ${m}`);
      warnings++;
    }
  }
  if (!group) {
    out.push('warning speedscope imported nothing');
    warnings++;
    continue;
  }
  for (const p of group.profiles) {
    let calls = 0;
    p.forEachCall(() => { calls++; }, () => {});
    out.push(`profile ${calls} ${p.getTotalWeight()} ${p.getName()}`);
    profiles++;
  }
}
out.push(`total ${profiles} profiles ${warnings} warnings`);
print(out.join('\n'));
