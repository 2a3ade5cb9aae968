/**
 * Deadlock detection for synchronous calls. A sync call blocks its thread until the worker's answer
 * comes, so a server that runs on that same thread can never answer it. The caller names the origins
 * of such servers (the `sameThreadOrigins` option); a call to one of them is refused at once instead
 * of hanging until its time-out.
 * @module
 */
import { isLoopback } from '../../auth/parse-connection-string.js';
import { FhirgateError } from '../../errors.js';

/** An origin with every loopback host name (`localhost`, `127.0.0.1`, `[::1]`) folded into one; `undefined` for a non-URL. */
function comparable(origin: string): string | undefined {
  if (typeof origin !== 'string' || !URL.canParse(origin)) return undefined;
  const url = new URL(origin);
  return isLoopback(url.hostname) ? `${url.protocol}//loopback:${url.port}` : url.origin;
}

/**
 * Throws `ERR_DEADLOCK` when one of `origins` (a source's FHIR and token origins) is one of
 * `sameThread`, the origins of servers that run on the calling thread.
 */
export function refuseSameThreadServer(className: string, origins: readonly string[], sameThread: Iterable<string>): void {
  const local = new Set([...sameThread].map(comparable));
  if (local.size === 0) return;
  const hit = origins.find((origin) => local.has(comparable(origin)));
  if (hit === undefined) return;
  throw new FhirgateError(
    'ERR_DEADLOCK',
    `${className}: the server at ${hit} runs on this thread, and a synchronous call blocks this thread until ` +
      'it is answered, so it could never be answered. Start the server in another process or worker thread, ' +
      'or use AsyncFHIRGateway on this thread.',
  );
}
