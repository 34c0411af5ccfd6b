// The files the viewer scripts read: each argument that is a file, and
// every file of each argument that is a directory, in name order.
import fs from 'node:fs';
import path from 'node:path';

export function traceFiles(args) {
  const out = [];
  for (const a of args) {
    if (fs.statSync(a).isDirectory())
      for (const f of fs.readdirSync(a).sort()) out.push(path.join(a, f));
    else
      out.push(a);
  }
  return out;
}
