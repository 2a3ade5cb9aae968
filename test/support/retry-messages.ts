/**
 * The `fhirgate:request:retry` messages about one origin, collected while a test runs. The channel is the
 * process's, and scripts/run-tests.mjs runs several test files in one process: a retry still under way
 * from another file or an earlier test publishes on it too.
 * @module
 */
import diagnostics_channel from 'node:diagnostics_channel';
import type { TestContext } from 'node:test';

/** Collects the retry messages whose `origin` is `origin` until the test ends. */
export function retryMessages(t: Pick<TestContext, 'after'>, origin: string): Record<string, unknown>[] {
  const seen: Record<string, unknown>[] = [];
  const listener = (m: unknown): void => {
    if ((m as { origin?: unknown }).origin === origin) seen.push(m as Record<string, unknown>);
  };
  diagnostics_channel.subscribe('fhirgate:request:retry', listener);
  t.after(() => diagnostics_channel.unsubscribe('fhirgate:request:retry', listener));
  return seen;
}
