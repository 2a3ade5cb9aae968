/**
 * Where the examples get a FHIR server from: the server named by `FHIR_CONNECTION_STRING` when it is
 * set, otherwise an embedded sandbox started on a free port (in-memory, seeded with demo patients).
 * Not an example itself; the examples import it so that each one stays about its own topic.
 * @module
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startSandbox } from '../../src/sandbox/index.js';

/**
 * A FHIR server for an example to talk to. Dispose of it (or call `close()`) when done.
 *
 * @example
 * ```ts
 * const fhir: FhirSource = await openFhirSource();
 * console.log(fhir.label);
 * await fhir.close();
 * ```
 */
export interface FhirSource extends AsyncDisposable {
  /** A `fhir://` connection string for `gateway.addSource()`. */
  readonly connectionString: string;
  /** Where the server is, for printing: `sandbox at http://127.0.0.1:PORT/fhir/R4` or `FHIR_CONNECTION_STRING`. */
  readonly label: string;
  /** Stops the sandbox, if one was started. Idempotent. */
  close(): Promise<void>;
}

/**
 * Options of {@link openFhirSource}.
 *
 * @example
 * ```ts
 * const options: OpenFhirSourceOptions = { childProcess: true };
 * ```
 */
export interface OpenFhirSourceOptions {
  /**
   * Run the sandbox in a child process instead of this thread. Needed by the synchronous
   * `FHIRGateway`, which blocks this thread while it waits for an answer. Default false.
   */
  childProcess?: boolean;
}

/**
 * Opens the FHIR server an example uses: `FHIR_CONNECTION_STRING` when set, else a fresh sandbox.
 *
 * @example
 * ```ts
 * await using fhir = await openFhirSource();
 * gw.addSource('ehr', fhir.connectionString);
 * ```
 */
export async function openFhirSource(options: OpenFhirSourceOptions = {}): Promise<FhirSource> {
  const given = process.env.FHIR_CONNECTION_STRING;
  if (given !== undefined && given !== '') return source(given, 'FHIR_CONNECTION_STRING', async () => {});
  if (options.childProcess === true) return sandboxInChildProcess();
  const sandbox = await startSandbox();
  return source(sandbox.connectionString(), `sandbox at ${sandbox.fhirBase}`, () => sandbox.close());
}

async function sandboxInChildProcess(): Promise<FhirSource> {
  // The same Node and loader flags as this process (`--import tsx`), so the child runs TypeScript too.
  const entry = fileURLToPath(new URL('./sandbox-process.ts', import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, entry], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the sandbox process exited (${code}) before it was ready`)));
  });
  const ready = JSON.parse(line) as { connectionString: string; fhirBase: string };
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      child.stdin.end(); // the child closes its sandbox and exits
      await exited;
    })();
    return closing;
  };
  return source(ready.connectionString, `sandbox at ${ready.fhirBase} (child process)`, close);
}

function source(connectionString: string, label: string, close: () => Promise<void>): FhirSource {
  return { connectionString, label, close, [Symbol.asyncDispose]: close };
}
