/**
 * The one way a test starts the embedded FHIR sandbox: on 127.0.0.1 port 0, closed in `t.after`.
 * @module
 */
import type { TestContext } from 'node:test';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

/**
 * Starts a sandbox that is closed after the test.
 *
 * @example
 * ```ts
 * test('reads a patient', async (t) => {
 *   const sb = await sandbox(t, { open: true });
 *   const res = await fetch(`${sb.fhirBase}/Patient`);
 * });
 * ```
 */
export async function sandbox(t: Pick<TestContext, 'after'>, options: SandboxOptions = {}): Promise<Sandbox> {
  const started = await startSandbox(options);
  t.after(() => started.close());
  return started;
}
