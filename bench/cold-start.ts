/**
 * Workload 6: time to import each public entry point from the built package (`dist/`), in a fresh
 * process each time. Run alone (after `npm run build`): `node --import tsx bench/cold-start.ts`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RUNS, summarize, type Summary } from './lib/stats.js';

const root = new URL('../', import.meta.url);

export function benchColdStart(): Record<string, Summary> {
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { exports: Record<string, { import?: string }> };
  const out: Record<string, Summary> = {};
  for (const [entry, target] of Object.entries(pkg.exports)) {
    if (typeof target !== 'object' || !target.import) continue;
    const file = fileURLToPath(new URL(target.import, root));
    const script = `const t=performance.now();await import(${JSON.stringify(file)});console.log(performance.now()-t)`;
    const runs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`importing ${entry} failed: ${r.stderr}`);
      runs.push(Number(r.stdout.trim()));
    }
    out[entry] = summarize(runs);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [entry, s] of Object.entries(benchColdStart())) console.log(`${entry.padEnd(12)} ${s.median.toFixed(1)} ms`);
}
