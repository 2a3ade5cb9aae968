/**
 * Runs a sandbox (or a server that never answers, or one that answers every request with the same
 * FHIR JSON) in a worker thread for the sync gateway's tests:
 * a sync call blocks its thread, so the server must live on another one.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { startSandbox } from '../../src/sandbox/index.js';
import type { SandboxOptions } from '../../src/sandbox/index.js';

interface Request { id: number; op: string; args: unknown[] }
const port = parentPort!;
const { mode, options, body } = workerData as { mode: 'sandbox' | 'silent' | 'fixed'; options: SandboxOptions; body?: string };

if (mode === 'silent' || mode === 'fixed') {
  // Accepts connections and requests; never answers, or answers each with `body`.
  const server = createServer((_req, res) => {
    if (mode === 'fixed') res.writeHead(200, { 'content-type': 'application/fhir+json' }).end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    port.postMessage({ ready: { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } });
  });
  port.on('message', (req: Request) => {
    server.closeAllConnections();
    server.close(() => port.postMessage({ id: req.id, value: null }));
  });
} else {
  const sandbox = await startSandbox(options);
  port.postMessage({ ready: { origin: sandbox.origin, fhirBase: sandbox.fhirBase, tokenUrl: sandbox.tokenUrl } });
  const ops: Record<string, (...args: unknown[]) => unknown> = {
    connectionString: (clientId, opts) => sandbox.connectionString(clientId as string | undefined, opts as { keyPath?: string; discover?: boolean }),
    stats: () => {
      const s = sandbox.stats;
      return { requests: s.requests, tokenRequests: s.tokenRequests, socketsAccepted: s.socketsAccepted, openSockets: s.openSockets, lastAuthMethod: s.lastAuthMethod };
    },
    fault: (name, ...rest) => (sandbox.faults as unknown as Record<string, (...a: unknown[]) => unknown>)[name as string]!(...rest),
    close: () => sandbox.close(),
  };
  port.on('message', async (req: Request) => {
    try {
      port.postMessage({ id: req.id, value: await ops[req.op]!(...req.args) });
    } catch (err) {
      port.postMessage({ id: req.id, error: String(err) });
    }
  });
}
