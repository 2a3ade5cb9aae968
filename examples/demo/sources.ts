/**
 * The demo's two FHIR sources, as two hospitals would be: embedded sandboxes with different data.
 * `ehr-a` authenticates with a client secret, `ehr-b` with a JWT assertion (SMART Backend Services)
 * signed by an ES384 key pair made at start. The private key lives in a temporary file with mode 0600
 * for the connection string's `client_secret_path`; `close()` (or the process's exit) removes it.
 * @module
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedResources, startSandbox, type Sandbox, type SeedVariant } from '../../src/sandbox/index.js';

/** The OAuth client that `ehr-b` knows by its public key. */
const KEY_CLIENT_ID = 'fhirgate-demo-backend';

/**
 * One source: its name, connection string (holds a secret: never print it) and what to say about it.
 *
 * @example
 * ```ts
 * for (const s of sources.list) gw.addSource(s.name, s.connectionString);
 * ```
 */
export interface DemoSource {
  readonly name: string;
  readonly connectionString: string;
  /** The sandbox's FHIR base URL. */
  readonly fhirBase: string;
  /** How the gateway authenticates, in words, without any secret. */
  readonly auth: string;
  /** The patient ids its seed holds. */
  readonly patientIds: readonly string[];
  /** The sandbox, for the demo's own setup and for tests (faults, stats). */
  readonly sandbox: Sandbox;
}

/**
 * The running sources. `close()` stops both sandboxes and removes the key file; idempotent.
 *
 * @example
 * ```ts
 * const sources = await startSources();
 * try { ... } finally { await sources.close(); }
 * ```
 */
export interface DemoSources {
  readonly list: readonly [DemoSource, DemoSource];
  /** The private key file of `ehr-b` (removed by `close()`). */
  readonly keyPath: string;
  close(): Promise<void>;
}

/**
 * Starts the two sandboxes and writes `ehr-b`'s private key file. On failure, whatever was started is
 * stopped and the key file removed before the error is rethrown.
 *
 * @example
 * ```ts
 * const { list: [a, b], keyPath } = await startSources();
 * ```
 */
export async function startSources(): Promise<DemoSources> {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  const keyDir = mkdtempSync(join(tmpdir(), 'fhirgate-demo-'));
  const keyPath = join(keyDir, 'ehr-b-private-key.pem');
  const removeKey = (): void => rmSync(keyDir, { recursive: true, force: true });
  // Removed on any exit, even one that skips close() (an uncaught error, process.exit elsewhere).
  process.once('exit', removeKey);
  const started: Sandbox[] = [];
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= (async () => {
    try {
      await Promise.all(started.map((s) => s.close()));
    } finally {
      removeKey();
      process.off('exit', removeKey);
    }
  })());
  try {
    writeFileSync(keyPath, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'wx' });
    const a = await startSandbox({ seed: 'a' });
    started.push(a);
    const b = await startSandbox({ seed: 'b', clients: [{ clientId: KEY_CLIENT_ID, publicKey }] });
    started.push(b);
    return {
      list: [
        describe('ehr-a', 'a', a, a.connectionString(), 'client credentials with a client secret (client "fhirgate-demo")'),
        describe('ehr-b', 'b', b, b.connectionString(KEY_CLIENT_ID, { keyPath }),
          `JWT assertion signed with an ES384 key made at start (client "${KEY_CLIENT_ID}")`),
      ],
      keyPath,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

function describe(name: string, seed: SeedVariant, sandbox: Sandbox, connectionString: string, auth: string): DemoSource {
  const patientIds = seedResources(seed).filter((r) => r.resourceType === 'Patient').map((r) => r.id as string);
  return { name, connectionString, fhirBase: sandbox.fhirBase, auth, patientIds, sandbox };
}
