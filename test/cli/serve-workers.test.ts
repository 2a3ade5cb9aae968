/** `fhirgate serve --workers`, `reusePort`, `metrics` and `readinessDrainMs`, as real child processes. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { reusePortMissing } from '../../src/cluster/listen-mode.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { runMain, startCli, tempDir, waitServing } from '../support/run-cli.js';

async function sandbox(t: { after(fn: () => Promise<void>): void }) {
  const s = await startSandbox({ seed: 'a' });
  t.after(() => s.close());
  return s;
}

test('serve --workers 2 answers through two worker processes, /health shows both pids, SIGTERM drains and exits 0', async (t) => {
  const sb = await sandbox(t);
  const run = startCli(t, ['serve', '--source', `a=${sb.connectionString()}`, '--port', '0', '--workers', '2']);
  const serving = (await waitServing(run)) as Awaited<ReturnType<typeof waitServing>> & { workers: number[] };
  assert.equal(serving.workers.length, 2);
  assert.notEqual(serving.workers[0], serving.workers[1]);
  assert.ok(!serving.workers.includes(run.child.pid!), 'the workers are not the primary');

  const origin = new URL(serving.gateway).origin;
  const pids = new Set<number>();
  // Each request on a new connection: the kernel spreads them over the workers (round-robin on Linux).
  for (let i = 0; i < 40 && pids.size < 2; i += 1) {
    const res = await fetch(`${origin}/health`, { headers: { connection: 'close' } });
    assert.equal(res.status, 200);
    pids.add(((await res.json()) as { pid: number }).pid);
  }
  assert.deepEqual([...pids].sort(), [...serving.workers].sort(), 'both workers answered /health, each with its own pid');
  const metadata = await fetch(`${serving.gateway}/metadata`);
  assert.equal(metadata.status, 200);
  assert.equal(((await metadata.json()) as { fhirVersion: string }).fhirVersion, '4.0.1');
  assert.equal((await fetch(`${origin}/metrics`)).status, 404, 'metrics are off by default');

  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
  assert.match(run.stdout(), /"msg":"cluster closed"[^\n]*"clean":true/);
  for (const pid of serving.workers) assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `worker ${pid} has exited`);
});

test('--reuse-port and "reusePort" choose how the workers get their connections; the primary says which', async (t) => {
  const sb = await sandbox(t);
  const dir = tempDir(t);
  const missing = reusePortMissing();
  writeFileSync(join(dir, 'on.json'), JSON.stringify({ sources: { a: sb.connectionString() }, port: 0, workers: 2, reusePort: missing === undefined }));
  const fromFile = startCli(t, ['serve', '--config', join(dir, 'on.json')]);
  const fromFlag = startCli(t, ['serve', '--config', join(dir, 'on.json'), '--reuse-port', 'false']);
  for (const [run, expected] of [[fromFile, missing === undefined], [fromFlag, false]] as const) {
    const origin = new URL((await waitServing(run)).gateway).origin;
    const starting = JSON.parse(run.stdout().split('\n').find((l) => l.includes('"msg":"cluster starting"'))!) as Record<string, unknown>;
    assert.deepEqual([starting['reuse_port'], starting['reuse_port_reason']], [expected, 'the reusePort option']);
    assert.equal((await fetch(`${origin}/health`)).status, 200);
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
  }
  const flag = await runMain(['serve', '--source', 'a=fhir://localhost:1/fhir/', '--workers', '2', '--reuse-port', 'maybe']);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /fhirgate serve: --reuse-port: must be "auto", true or false/);
  if (missing !== undefined) {
    const unsupported = await runMain(['serve', '--source', 'a=fhir://localhost:1/fhir/', '--workers', '2', '--reuse-port', 'true']);
    assert.equal(unsupported.code, 2);
    assert.match(unsupported.stderr, new RegExp(`--reuse-port: is true, but ${missing.replace(/[.()]/g, '\\$&')}: leave it "auto" or false`));
  }
});

test('config metrics: true serves the Prometheus text at /metrics; --metrics does too; off it is 404', async (t) => {
  const sb = await sandbox(t);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'on.json'), JSON.stringify({ sources: { a: sb.connectionString() }, metrics: true, readinessDrainMs: 0, port: 0 }));
  const fromFile = startCli(t, ['serve', '--config', join(dir, 'on.json')]);
  const fromFlag = startCli(t, ['serve', '--source', `a=${sb.connectionString()}`, '--port', '0', '--metrics']);
  for (const run of [fromFile, fromFlag]) {
    const serving = await waitServing(run);
    assert.equal((await fetch(`${serving.gateway}/metadata`)).status, 200);
    const metrics = await fetch(new URL('/metrics', serving.gateway));
    assert.equal(metrics.status, 200);
    assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    assert.match(text, /^# TYPE \S+ counter$/m);
    assert.match(text, /route="\/fhir\/metadata"/, 'the request just made is counted by route template');
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
  }
});

test('readinessDrainMs from the config: after SIGTERM /health/ready answers 503 while the listener still accepts', async (t) => {
  const sb = await sandbox(t);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'drain.json'), JSON.stringify({ sources: { a: sb.connectionString() }, readinessDrainMs: 60_000, port: 0 }));
  const run = startCli(t, ['serve', '--config', join(dir, 'drain.json')]);
  const origin = new URL((await waitServing(run)).gateway).origin;
  assert.equal((await fetch(`${origin}/health/ready`)).status, 200);
  run.child.kill('SIGTERM');
  // The drain lasts a minute: the answer turns to 503 and stays so (the loop ends on the first 503).
  let status = 200;
  while (status === 200) status = (await fetch(`${origin}/health/ready`, { headers: { connection: 'close' } })).status;
  assert.equal(status, 503);
  run.child.kill('SIGKILL');
});

test('bad workers, metrics, readinessDrainMs and time-out settings exit 1 naming the setting', async (t) => {
  const dir = tempDir(t);
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ workers: 0 }, /workers: must be "auto" or an integer from 1 to 1024/],
    [{ workers: 'many' }, /workers: must be "auto" or an integer from 1 to 1024/],
    [{ metrics: 'yes' }, /metrics: must be true or false/],
    [{ reusePort: 'yes' }, /reusePort: must be "auto", true or false/],
    [{ reusePrt: true }, /reusePrt.*reusePort/],
    [{ readinessDrainMs: -1 }, /readinessDrainMs: must be a whole number of milliseconds/],
    [{ shutdownGraceMs: 1.5 }, /shutdownGraceMs: must be a whole number of milliseconds, 0 or more/],
    [{ stopTimeoutMs: 0 }, /stopTimeoutMs: must be a whole number of milliseconds, 1 or more/],
    [{ headersTimeoutMs: '5s' }, /headersTimeoutMs: must be a whole number of milliseconds, 1 or more/],
    [{ requestTimeoutMs: -5 }, /requestTimeoutMs: must be a whole number of milliseconds, 1 or more/],
    [{ headersTimeoutMs: 5000, requestTimeoutMs: 1000 }, /headersTimeoutMs: must be <= requestTimeoutMs/],
    [{ headersTimeoutMs: 90000 }, /headersTimeoutMs: must be <= requestTimeoutMs/],
  ];
  for (const [settings, message] of cases) {
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ sources: { a: 'fhir://localhost:1/fhir/' }, ...settings }));
    const { code, stderr } = await runMain(['serve', '--config', join(dir, 'bad.json')]);
    assert.equal(code, 1, JSON.stringify(settings));
    assert.match(stderr, message);
  }
  const flag = await runMain(['serve', '--source', 'a=fhir://localhost:1/fhir/', '--workers', '2x']);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /fhirgate serve: --workers: must be "auto" or an integer from 1 to 1024/);
});
