/**
 * Test helpers of the sync gateway: a sandbox (or a server that never answers) running in a worker
 * thread, so that the test's own thread can block in sync calls.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { siblingModuleUrl } from '../../src/lib/worker-bridge/bridge.js';
import { startWorker } from '../../src/lib/worker-bridge/start-worker.js';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { LOADER, ROOT, srcModule } from './code-tree.js';

/** What the sandbox's stats said, copied across the thread boundary. */
export interface StatsSnapshot {
  requests: { total: number; byMethod: Record<string, number>; byKind: Record<string, number> };
  tokenRequests: number;
  socketsAccepted: number;
  openSockets: number;
  lastAuthMethod: string | undefined;
}

/** A server in a worker thread. */
export interface RemoteServer {
  origin: string;
  fhirBase: string;
  tokenUrl: string;
  /** `sandbox.connectionString(...)`, computed in the worker. */
  connectionString(clientId?: string, options?: { keyPath?: string; discover?: boolean }): Promise<string>;
  stats(): Promise<StatsSnapshot>;
  /** `sandbox.faults[name](...args)`. */
  fault(name: string, ...args: unknown[]): Promise<void>;
  close(): Promise<void>;
}

interface Teardown { after(fn: () => Promise<void> | void): void }

const workerUrl = siblingModuleUrl(import.meta.url, './sandbox-worker');

async function start(t: Teardown, mode: 'sandbox' | 'silent' | 'fixed', options: SandboxOptions, body?: string): Promise<RemoteServer> {
  const worker: Worker = startWorker(workerUrl, { workerData: { mode, options, body } });
  const [first] = (await Promise.race([once(worker, 'message'), once(worker, 'error').then(([e]) => Promise.reject(e))])) as [{ ready: { origin: string; fhirBase?: string; tokenUrl?: string } }];
  let nextId = 0;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  worker.on('message', (msg: { id: number; value?: unknown; error?: string }) => {
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    if (msg.error !== undefined) p?.reject(new Error(msg.error));
    else p?.resolve(msg.value);
  });
  const ask = (op: string, ...args: unknown[]): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, op, args });
    });
  let closed: Promise<void> | undefined;
  const server: RemoteServer = {
    origin: first.ready.origin,
    fhirBase: first.ready.fhirBase ?? first.ready.origin,
    tokenUrl: first.ready.tokenUrl ?? `${first.ready.origin}/token`,
    connectionString: (clientId, opts) => ask('connectionString', clientId, opts) as Promise<string>,
    stats: () => ask('stats') as Promise<StatsSnapshot>,
    fault: async (name, ...args) => void (await ask('fault', name, ...args)),
    close: () => (closed ??= (async () => {
      await ask('close');
      await worker.terminate();
    })()),
  };
  t.after(() => server.close());
  return server;
}

/** Starts `startSandbox(options)` in a worker thread; closed in `t.after`. */
export function startRemoteSandbox(t: Teardown, options: SandboxOptions = {}): Promise<RemoteServer> {
  return start(t, 'sandbox', options);
}

/** Starts, in a worker thread, an HTTP server that accepts requests and never answers them. */
export function startSilentServer(t: Teardown): Promise<RemoteServer> {
  return start(t, 'silent', {});
}

/** Starts, in a worker thread, an HTTP server that answers every request 200 with `body` as FHIR JSON. */
export function startFixedServer(t: Teardown, body: string): Promise<RemoteServer> {
  return start(t, 'fixed', {}, body);
}

/** What a gateway script run by {@link runGatewayScript} did. */
export interface ScriptRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

/** Below the runner's 120 s per-test limit, so that the test reports the failure itself. */
const SCRIPT_SAFETY_MS = 90_000;

/**
 * Runs `body` (lines of TypeScript after `const gw = new FHIRGateway({ events: false })` with the source
 * "sb" added from `CS`) as its own Node process, and resolves once it exits (or is killed after a safety
 * time-out).
 */
export async function runGatewayScript(t: Teardown, server: RemoteServer, body: readonly string[], nodeArgs: readonly string[] = []): Promise<ScriptRun> {
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-sync-script-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(dir, 'script.mjs');
  const gatewayUrl = srcModule('gateway/sync-gateway');
  writeFileSync(script, [
    `import { FHIRGateway } from ${JSON.stringify(gatewayUrl)};`,
    'const gw = new FHIRGateway({ events: false });',
    'gw.addSource("sb", process.env.CS);',
    ...body,
  ].join('\n'));
  const child = spawn(process.execPath, [...nodeArgs, ...LOADER, script], {
    cwd: ROOT,
    env: { ...process.env, CS: await server.connectionString(), NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  const safety = setTimeout(() => child.kill('SIGKILL'), SCRIPT_SAFETY_MS);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
  clearTimeout(safety);
  return { code, signal, out, err };
}
