#!/usr/bin/env node
// Interleaved compiled runs: node scripts/perf/ab.mjs N DIR A_ROOT B_ROOT [extra run args...]
// Each pair runs A then B (order alternates per pair), each with a fresh
// --out and TOOLMARK_CACHE_DIR, `--timings`; prints every run and the medians
// of each phase's wall, the whole wall, CPU and peak RSS.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const [n, dir, a, b, ...extra] = process.argv.slice(2);
if (!b || !(Number(n) > 0)) {
  console.error('usage: ab.mjs N DIR A_ROOT B_ROOT [extra run args...]');
  process.exit(2);
}
const runs = { A: [], B: [] };
const roots = { A: a, B: b };
function once(label) {
  const out = mkdtempSync(path.join(os.tmpdir(), 'ab-out-'));
  const cache = mkdtempSync(path.join(os.tmpdir(), 'ab-cache-'));
  const r = spawnSync(
    process.execPath,
    [path.join(roots[label], 'bin/toolmark.js'), 'run', '--out', out, '--timings', ...extra],
    {
      cwd: dir,
      env: { ...process.env, TOOLMARK_DIST: '1', TOOLMARK_CACHE_DIR: cache },
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    },
  );
  rmSync(out, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
  const line = (r.stderr || '').split('\n').find((l) => l.startsWith('timings: '));
  if (!line) {
    console.log(`${label}: no timings (exit ${r.status}) ${r.stderr.slice(-500)}`);
    return;
  }
  const t = JSON.parse(line.slice(9));
  runs[label].push(t);
  const phases = t.phases.map((p) => `${p.phase} ${Math.round(p.wall_ms)}`).join(' · ');
  console.log(
    `${label} wall ${Math.round(t.wall_ms)} cpu ${Math.round(t.cpu_ms)} rss ${t.peak_rss_mb} | ${phases} [load ${os.loadavg()[0].toFixed(2)}]`,
  );
}
for (let i = 0; i < Number(n); i++) {
  const order = i % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
  for (const label of order) once(label);
}
const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
for (const label of ['A', 'B']) {
  const rs = runs[label];
  if (!rs.length) continue;
  const phaseNames = rs[0].phases.map((p) => p.phase);
  const parts = phaseNames.map(
    (name) =>
      `${name} ${Math.round(median(rs.map((r) => r.phases.find((p) => p.phase === name)?.wall_ms ?? 0)))}/${Math.round(median(rs.map((r) => r.phases.find((p) => p.phase === name)?.cpu_ms ?? 0)))}`,
  );
  console.log(
    `median ${label} (${roots[label]}) phases wall/cpu: wall ${Math.round(median(rs.map((r) => r.wall_ms)))} cpu ${Math.round(median(rs.map((r) => r.cpu_ms)))} rss ${median(rs.map((r) => r.peak_rss_mb))} | ${parts.join(' · ')}`,
  );
}
