/**
 * A cluster for the tests, run as its own process: `node --import tsx cluster-app.ts`. The environment
 * picks the case: WORKERS, APP (`ok`, `throws`, `not-an-app`, `hangs`: createApp never resolves, `dies-idle`:
 * the worker listens, then dies of an uncaught error 300 ms later without having served), DRAIN_MS,
 * GATE_URL (GET /slow waits for an answer from it), MAX_RESTARTS, RESTART_WINDOW_MS, STOP_TIMEOUT_MS, REUSE_PORT
 * (`auto`, the default, `true` or `false`). GET
 * /crash throws outside the request (the worker dies of an uncaught error). The primary prints `{"msg":"cluster ready","port":…,"workers":[…]}`.
 * With PRIMARY=programmatic it then calls restart() and close() itself and prints what they did.
 */
import { serveCluster } from '../../src/cluster/index.js';
import { createServiceAPI } from '../../src/host/index.js';
import type { ServiceAPI } from '../../src/host/index.js';

const env = process.env;

function reusePort(value: string | undefined): 'auto' | boolean {
  return value === undefined || value === 'auto' ? 'auto' : value === 'true';
}

const handle = await serveCluster(
  async () => {
    if (env['APP'] === 'throws') throw new Error('the database is unreachable (test)');
    if (env['APP'] === 'not-an-app') return {} as ServiceAPI;
    if (env['APP'] === 'hangs') await new Promise(() => {});
    if (env['APP'] === 'dies-idle') {
      setTimeout(() => {
        throw new Error('the worker broke while idle (test)');
      }, 300);
    }
    const app = createServiceAPI({ apiKeys: [], readinessDrainMs: Number(env['DRAIN_MS'] ?? 0) });
    app.get('/crash', () => {
      setImmediate(() => {
        throw new Error('the handler broke the worker (test)');
      });
      return { crashing: true };
    });
    app.get('/slow', async () => {
      const gate = await fetch(env['GATE_URL']!);
      return { gate: await gate.text() };
    });
    return app;
  },
  { workers: Number(env['WORKERS'] ?? 2), port: 0, maxRestarts: Number(env['MAX_RESTARTS'] ?? 5), restartDelayMs: 20, stopTimeoutMs: Number(env['STOP_TIMEOUT_MS'] ?? 30_000), restartWindowMs: Number(env['RESTART_WINDOW_MS'] ?? 30_000), reusePort: reusePort(env['REUSE_PORT']) },
);
if (handle.role === 'primary') {
  console.log(JSON.stringify({ msg: 'cluster ready', port: handle.port, workers: handle.workers.map((w) => w.pid) }));
  if (env['PRIMARY'] === 'programmatic') {
    const before = handle.workers.map((w) => w.pid);
    await handle.restart();
    const after = handle.workers.map((w) => w.pid);
    const closing = handle.close();
    const same = closing === handle.close();
    await closing;
    const late = await handle.restart().then(() => 'resolved', (error: { code?: string }) => error.code);
    console.log(JSON.stringify({ msg: 'programmatic', before, after, same, late, left: handle.workers.length }));
  }
}
