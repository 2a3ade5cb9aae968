/**
 * `reusePort`: each worker listens on the port itself where Node has it (22.12 or later on Linux). Its
 * guarantees under load are measured in a network namespace of the test's own with
 * `net.ipv4.tcp_migrate_req=1` (as root; skipped with the reason elsewhere), with the load client inside it too.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { serveCluster } from '../../src/cluster/index.js';
import { reusePortMissing } from '../../src/cluster/listen-mode.js';
import { createServiceAPI } from '../../src/host/index.js';
import { helperScript, LOADER } from '../support/code-tree.js';
import { answered, describeLoad, failures } from '../support/load-client.js';
import type { LoadCounts } from '../support/load-client.js';
import { startCluster } from './helpers.js';
import { inNamespace, makeNamespace } from './namespace.js';

const LOAD_RUNNER = helperScript(import.meta.url, './load-runner');

interface LoadResult {
  readonly name: string;
  readonly counts: LoadCounts;
  readonly resets: { atClose: number; other: number };
}

/** The mixed load of the cluster tests from a process inside namespace `name`; `stop()` resolves to what it saw. */
async function loadInNamespace(t: TestContext, name: string, url: string): Promise<{ stop(): Promise<LoadResult[]> }> {
  const [command, ...args] = [...inNamespace(name), process.execPath, ...LOADER, LOAD_RUNNER, url];
  const child = spawn(command!, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => void child.kill('SIGKILL'));
  let out = '';
  const lines = () => out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown);
  const exited = once(child, 'exit');
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve();
    });
    void exited.then(() => reject(new Error(`the load client ended before it started: ${out}`)));
  });
  return {
    stop: async () => {
      child.stdin!.end();
      await exited;
      return lines()[1] as LoadResult[];
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pids of the processes listening on TCP `port` in namespace `name` (from `ss`). */
function listeners(name: string, port: number): number[] {
  const ss = spawnSync(inNamespace(name)[0]!, [...inNamespace(name).slice(1), 'ss', '-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  return [...ss.stdout.matchAll(/pid=(\d+)/g)].map((m) => Number(m[1])).sort();
}

test('the reusePort option: a typo is refused with the name, a wrong value or a runtime without it at once', () => {
  const make = () => createServiceAPI();
  assert.throws(() => serveCluster(make, { port: 0, reusePrt: true } as never), { name: 'TypeError', message: 'options.reusePrt is not an option; did you mean `reusePort`?' });
  assert.throws(() => serveCluster(make, { port: 0, reusePort: 'yes' as never }), { name: 'TypeError', message: 'options.reusePort must be "auto" or a boolean' });
  const missing = reusePortMissing();
  if (missing !== undefined) {
    assert.throws(() => serveCluster(make, { port: 0, reusePort: true }), { name: 'RangeError', message: `options.reusePort is true, but ${missing}: leave it "auto" or false` });
  }
});

test('the cluster starting line says whether the workers listen themselves, and why', async (t) => {
  const off = startCluster(t, { WORKERS: '1', REUSE_PORT: 'false' });
  const starting = await off.waitFor((l) => l.msg === 'cluster starting');
  assert.deepEqual([starting['reuse_port'], starting['reuse_port_reason']], [false, 'the reusePort option']);
  const auto = startCluster(t, { WORKERS: '1' });
  const line = await auto.waitFor((l) => l.msg === 'cluster starting');
  const missing = reusePortMissing();
  if (missing !== undefined) assert.deepEqual([line['reuse_port'], line['reuse_port_reason']], [false, `auto: no reusePort: ${missing}`]);
  else if (line['tcp_migrate_req'] !== 1) assert.deepEqual([line['reuse_port'], line['reuse_port_reason']], [false, `auto: net.ipv4.tcp_migrate_req is ${line['tcp_migrate_req'] ?? 'unreadable'}, not 1`]);
  else assert.equal(line['reuse_port'], true);
  for (const cluster of [off, auto]) {
    await cluster.ready();
    cluster.child.kill('SIGTERM');
    assert.equal(await cluster.exited, 0);
  }
});

// A listener's close resets the connections the kernel queued on it that no other listener of the port
// takes (Linux inet_csk_listen_stop): a rolling restart's old worker hands its queue over (tcp_migrate_req=1);
// on a SIGTERM the workers hold new connections until every queue reads empty, close together, and only
// then answer what they held, so that under this closed-loop load nothing is reset and the clients' next
// connections are refused.
test('with reusePort and tcp_migrate_req=1: a SIGHUP rolling restart under load resets and loses nothing; a SIGTERM resets nothing either', async (t) => {
  const namespace = makeNamespace(t);
  if ('skip' in namespace) return void t.skip(namespace.skip);
  const cluster = startCluster(t, { WORKERS: '2' }, { prefix: inNamespace(namespace.name) });
  const starting = await cluster.waitFor((l) => l.msg === 'cluster starting');
  assert.deepEqual([starting['reuse_port'], starting['tcp_migrate_req']], [true, 1], 'auto chose reusePort in the namespace');
  const { base, port, workers } = await cluster.ready();
  assert.deepEqual(listeners(namespace.name, port), [...workers].sort(), 'each worker listens on the port itself; the primary no more');

  const rolling = await loadInNamespace(t, namespace.name, `${base}/`);
  await sleep(500);
  const from = cluster.lines.length;
  cluster.child.kill('SIGHUP');
  await cluster.waitFor((l) => l.msg === 'rolling restart done', from);
  for (const { name, counts } of await rolling.stop()) {
    t.diagnostic(`SIGHUP: ${describeLoad(name, counts)}`);
    assert.equal(counts.reset, 0, `SIGHUP, ${name}: a reset`);
    assert.equal(failures(counts), 0, `SIGHUP, ${name}: ${JSON.stringify(counts)}`);
    assert.equal(counts.refused, 0, 'the port never closed');
    assert.ok(answered(counts) > 0);
  }

  const stopping = await loadInNamespace(t, namespace.name, `${base}/`);
  await sleep(500);
  cluster.child.kill('SIGTERM');
  assert.equal(await cluster.exited, 0);
  // Clients keep trying for a moment after the exit: all of that must be refusals.
  await sleep(200);
  for (const { name, counts, resets } of await stopping.stop()) {
    t.diagnostic(`SIGTERM: ${describeLoad(name, counts)}; resets at a listener's close ${resets.atClose}, others ${resets.other}`);
    assert.equal(counts.reset, 0, `SIGTERM, ${name}: ${counts.reset} reset (${resets.atClose} at a listener's close)`);
    assert.equal(failures(counts), 0, `SIGTERM, ${name}: ${JSON.stringify(counts)}`);
    assert.ok(answered(counts) > 0);
    assert.ok(counts.refused > 0, 'the load went on until the port was closed');
  }
});
