/**
 * One HTTP exchange on `node:http`/`node:https`: send, buffer the answer up to a limit, map every
 * failure to a coded error. Never follows redirects.
 * @module
 */
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { FhirgateError } from '../errors.js';
import { publish, requestEndChannel, requestStartChannel } from './diagnostics.js';
import type { CheckedRequestOptions, HttpResponse } from './request-options.js';
import type { TryFailure } from './retry-policy.js';
import { abortError } from './signals.js';
import { USER_AGENT } from './user-agent.js';

const failures = new WeakMap<Error, TryFailure>();

/**
 * How a rejection of {@link exchange} failed, for the retry decision: `refused`, `reset` (reset, broken
 * pipe or hang-up before any response byte), `stale` (the same on a reused keep-alive socket: the
 * server had closed an idle connection) or `other`.
 *
 * @example
 * ```ts
 * if (failureOf(err).failure === 'stale') return exchange(url, options, signal);
 * ```
 */
export function failureOf(err: unknown): { readonly failure: TryFailure } {
  return { failure: (err instanceof Error && failures.get(err)) || 'other' };
}

/**
 * Sends one request and buffers its answer. The socket is taken synchronously (so that a pool that
 * counts sockets sees the new one at once).
 *
 * @example
 * ```ts
 * const res = await exchange(new URL('https://h/r4/metadata'), checkRequestOptions({}), undefined);
 * ```
 */
export function exchange(target: URL, options: CheckedRequestOptions, signal: AbortSignal | undefined): Promise<HttpResponse> {
  const what = `${options.method} ${target.origin}${target.pathname}`;
  return new Promise<HttpResponse>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal, what));
      return;
    }
    const started = performance.now();
    const facts = { method: options.method, origin: target.origin, path: target.pathname };
    publish(requestStartChannel, () => ({ ...facts }));
    const headers: Record<string, string | number> = { 'user-agent': USER_AGENT, ...options.headers };
    if (options.body !== undefined) headers['content-length'] = Buffer.byteLength(options.body);
    const transport = target.protocol === 'https:' ? https : http;
    let settled = false;
    const settle = (err: FhirgateError | undefined, res?: HttpResponse): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      publish(requestEndChannel, () => ({ ...facts, status: res?.status, error: err?.code, durationMs: performance.now() - started }));
      if (err !== undefined) {
        req.destroy();
        reject(err);
      } else resolve(res as HttpResponse);
    };
    const onAbort = (): void => settle(abortError(signal as AbortSignal, what));
    const req = transport.request(target, { method: options.method, headers, agent: options.agent });
    signal?.addEventListener('abort', onAbort, { once: true });
    let responded = false;
    req.on('error', (cause) => {
      const err = new FhirgateError('ERR_NETWORK', `${what} failed: ${errorCode(cause)}`, { cause });
      const kind = responded ? undefined : beforeAnswer(cause);
      if (kind !== undefined) failures.set(err, kind === 'reset' && req.reusedSocket ? 'stale' : kind);
      settle(err);
    });
    req.on('response', (res) => {
      responded = true;
      const limit = options.maxResponseBytes;
      const tooLarge = (): FhirgateError =>
        new FhirgateError('ERR_RESPONSE_TOO_LARGE', `${what}: the answer is larger than ${limit} bytes`);
      if (Number(res.headers['content-length']) > limit) {
        settle(tooLarge());
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) settle(tooLarge());
        else chunks.push(chunk);
      });
      const cutShort = (cause?: unknown): void =>
        settle(new FhirgateError('ERR_NETWORK', `${what} failed: the connection closed in the middle of the answer`, { cause }));
      res.on('error', cutShort);
      res.on('close', () => {
        if (!res.complete) cutShort();
      });
      res.on('end', () => settle(undefined, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks, size) }));
    });
    req.end(options.body);
  });
}

/** `refused` or `reset` for the socket failures that a retry may cure; `undefined` for the others. */
function beforeAnswer(cause: unknown): 'refused' | 'reset' | undefined {
  const code = (cause as { code?: unknown } | null)?.code;
  if (code === 'ECONNREFUSED') return 'refused';
  return code === 'ECONNRESET' || code === 'EPIPE' ? 'reset' : undefined;
}

function errorCode(cause: unknown): string {
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'connection failed';
}
