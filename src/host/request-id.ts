/**
 * Request ids: the caller's `X-Request-ID` when it is a sane token, a fresh UUID-shaped id otherwise.
 * @module
 */
import { randomUUID } from 'node:crypto';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The first 24 characters of a random version-4 UUID, drawn once per process (70 random bits); each new
 * id puts a counter in the last 12 hex digits. A `randomUUID()` per request was 3% of the host's CPU
 * on the transform endpoint (`node --cpu-prof`); ids need to be unique, not unpredictable.
 */
const PROCESS_PREFIX = randomUUID().slice(0, 24);
let issued = 0;

/**
 * Returns the request id to use: `incoming` when it is 1–128 characters of `[A-Za-z0-9._:-]`, else a
 * new UUID-shaped id unique to this process and request (so that nothing odd reaches a log line or a
 * header).
 */
export function pickRequestId(incoming: string | string[] | undefined): string {
  if (typeof incoming === 'string' && SANE_ID.test(incoming)) return incoming;
  issued = (issued + 1) % 2 ** 48;
  return PROCESS_PREFIX + issued.toString(16).padStart(12, '0');
}
