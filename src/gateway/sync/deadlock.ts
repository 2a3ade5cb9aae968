/**
 * Deadlock detection for synchronous calls. A sync call blocks its thread until the worker's answer
 * comes, so a server that runs on that same thread can never answer it. The embedded sandbox records
 * the origins it listens on, per thread, in `globalThis[Symbol.for('fhirgate.sandbox.origins')]`; a
 * call to one of them is refused at once instead of hanging until its time-out.
 * @module
 */
import { isLoopback } from '../../auth/index.js';
import { FhirgateError } from '../../errors.js';

/** Where the sandbox keeps the `Set<string>` of origins listening on this thread. */
const SAME_THREAD_ORIGINS = Symbol.for('fhirgate.sandbox.origins');

/** An origin with every loopback host name (`localhost`, `127.0.0.1`, `[::1]`) folded into one. */
function comparable(origin: string): string {
  const url = new URL(origin);
  return isLoopback(url.hostname) ? `${url.protocol}//loopback:${url.port}` : url.origin;
}

/**
 * Throws `ERR_DEADLOCK` when one of `origins` (a source's FHIR and token origins) is served by a
 * sandbox on the calling thread.
 *
 * @example
 * ```ts
 * refuseSameThreadServer('FHIRGateway', ['http://127.0.0.1:8000']); // throws while a sandbox listens there
 * ```
 */
export function refuseSameThreadServer(className: string, origins: readonly string[]): void {
  const listening = (globalThis as Record<symbol, unknown>)[SAME_THREAD_ORIGINS];
  if (!(listening instanceof Set) || listening.size === 0) return;
  const local = new Set([...(listening as Set<string>)].map(comparable));
  const hit = origins.find((origin) => local.has(comparable(origin)));
  if (hit === undefined) return;
  throw new FhirgateError(
    'ERR_DEADLOCK',
    `${className}: the server at ${hit} runs on this thread, and a synchronous call blocks this thread until ` +
      'it is answered, so it could never be answered. Start the server in another process or worker thread, ' +
      'or use AsyncFHIRGateway on this thread.',
  );
}
