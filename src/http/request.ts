/**
 * `request()`: one HTTP request with retries, a time-out, an abort signal, a response size limit and
 * coded errors. Used by the gateway (through the pool), the token manager, and the CDS service (prefetch,
 * JWKS).
 * @module
 */
import http from 'node:http';
import https from 'node:https';
import { Deadline } from './deadline.js';
import { startExchange } from './exchange.js';
import { dropIdleSockets } from './idle-sockets.js';
import { checkRequestOptions, toHTTPUrl } from './request-options.js';
import type { HTTPRequestOptions, HTTPResponse } from './request-options.js';
import { sendWithRetries } from './send-with-retries.js';

/**
 * Sends one request and buffers the answer. Any status is an answer (a 404 resolves); redirects are
 * never followed (a 3xx resolves as it is). Rejects only with coded errors: `ERR_TIMEOUT`,
 * `ERR_ABORTED`, `ERR_NETWORK` or `ERR_RESPONSE_TOO_LARGE`, the Node error as `cause`. Misuse
 * (a non-http URL, a bad option) throws `TypeError`/`RangeError` at once.
 *
 * Idempotent requests are retried (see the retry options of {@link HTTPRequestOptions}) and the last answer is returned: a 503
 * retried twice resolves as the third 503. A request that fails on a stale keep-alive socket is sent
 * once more on a new socket, whatever its method.
 */
export function request(url: string | URL, options: HTTPRequestOptions = {}): Promise<HTTPResponse> {
  const target = toHTTPUrl(url);
  const checked = checkRequestOptions(options);
  const deadline = new Deadline(checked.signal, checked.timeoutMs);
  return sendWithRetries(target, checked, deadline, {
    sendTry(freshSocket, listener) {
      if (freshSocket) dropIdleSockets(checked.agent ?? (target.protocol === 'https:' ? https.globalAgent : http.globalAgent), target);
      startExchange(target, checked, deadline, listener);
    },
  });
}
