/**
 * The cluster that `bench/cluster-ramp.ts` measures: `serveCluster` with WORKERS workers (default 2) and
 * REUSE_PORT (`auto`, `true`, `false`), serving GET /work, which spends WORK_MS (default 1.4) of CPU per
 * request, about what the soak's demo mix costs (bench/RESULTS.md), so that a closed loop of 1,000
 * connections saturates the workers as the soak does. The primary prints `{"msg":"ramp cluster ready","port":…}`.
 */
import { serveCluster } from '../../src/cluster/index.js';
import { createServiceAPI } from '../../src/index.js';

const env = process.env;
const workMs = Number(env['WORK_MS'] ?? 1.4);
const reusePort = env['REUSE_PORT'] === 'true' ? true : env['REUSE_PORT'] === 'false' ? false : 'auto';

const handle = await serveCluster(() => {
  const app = createServiceAPI({ logger: { debug() {}, info() {}, warn: console.error, error: console.error } });
  app.get('/work', () => {
    const until = performance.now() + workMs;
    let spins = 0;
    while (performance.now() < until) spins += 1;
    return { spins };
  });
  return app;
}, { workers: Number(env['WORKERS'] ?? 2), port: 0, reusePort });
if (handle.role === 'primary') console.log(JSON.stringify({ msg: 'ramp cluster ready', port: handle.port }));
