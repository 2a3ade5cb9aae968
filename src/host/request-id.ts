/**
 * Request ids: the caller's `X-Request-ID` when it is a sane token, a fresh UUID otherwise.
 * @module
 */
import { randomUUID } from 'node:crypto';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Returns the request id to use: `incoming` when it is 1–128 characters of `[A-Za-z0-9._:-]`, else a
 * random UUID (so that nothing odd reaches a log line or a header).
 *
 * @example
 * ```ts
 * pickRequestId('abc-123');        // 'abc-123'
 * pickRequestId('<script>');       // '3b0c…' (a new UUID)
 * ```
 */
export function pickRequestId(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && SANE_ID.test(incoming) ? incoming : randomUUID();
}
