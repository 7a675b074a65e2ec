#!/usr/bin/env node
// Usage: node scripts/perf/same-outputs.mjs BASE_RUN_DIR NEW_RUN_DIR
// Compares two run folders: summary.json, report.md, junit.xml byte for byte;
// report.html with ISO timestamps and commit ids blanked; trials.jsonl record
// by record with started_at and latency_ms removed (sorted if order differs).
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
const [base, next] = process.argv.slice(2);
if (!base || !next) {
  console.error('usage: same-outputs.mjs BASE NEW');
  process.exit(2);
}
const FILES = ['summary.json', 'report.md', 'junit.xml', 'report.html', 'trials.jsonl'];
const missing = [base, next].flatMap((dir) =>
  FILES.filter((f) => !existsSync(path.join(dir, f))).map((f) => path.join(dir, f)),
);
if (missing.length > 0) {
  console.error(`not a finished run folder: missing ${missing.join(', ')}`);
  process.exit(2);
}
let bad = 0;
const read = (dir, f) => readFileSync(path.join(dir, f), 'utf8');
for (const f of FILES.slice(0, 3)) {
  if (read(base, f) !== read(next, f)) {
    console.log(`${f}: differs`);
    bad++;
  }
}
const html = (dir) =>
  read(dir, 'report.html')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, 'TIME')
    .replace(/commit [0-9a-f]{4,40}[^<]*/g, 'commit X');
const ha = html(base),
  hb = html(next);
if (ha !== hb) {
  let i = 0;
  while (i < ha.length && ha[i] === hb[i]) i++;
  console.log(
    `report.html: differs at char ${i}: BASE …${ha.slice(Math.max(0, i - 80), i + 80)}… NEW …${hb.slice(Math.max(0, i - 80), i + 80)}…`,
  );
  bad++;
}
const strip = (value) => {
  if (Array.isArray(value)) return value.map(strip);
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) if (k !== 'started_at' && k !== 'latency_ms') out[k] = strip(v);
    return out;
  }
  return value;
};
const records = (dir) =>
  read(dir, 'trials.jsonl')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.stringify(strip(JSON.parse(l))));
let ra = records(base),
  rb = records(next);
if (ra.length !== rb.length) {
  console.log(`trials.jsonl: ${ra.length} vs ${rb.length} records`);
  bad++;
} else {
  let same = ra.every((r, i) => r === rb[i]);
  if (!same) {
    ra = [...ra].sort();
    rb = [...rb].sort();
    same = ra.every((r, i) => r === rb[i]);
    if (same) console.log('trials.jsonl: same records, different order');
  }
  if (!same) {
    const i = ra.findIndex((r, j) => r !== rb[j]);
    console.log(`trials.jsonl: record differs: BASE ${ra[i].slice(0, 300)}\nNEW  ${rb[i].slice(0, 300)}`);
    bad++;
  }
}
console.log(bad ? `DIFFERENT (${bad})` : `same outputs (${ra.length} records)`);
process.exit(bad ? 1 : 0);
