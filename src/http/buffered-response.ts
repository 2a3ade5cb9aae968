/**
 * The answer `exchange()` resolves with, and the `Content-Length` check made before its body is read.
 * @module
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { HTTPResponse } from './request-options.js';

/**
 * A complete, buffered answer. Node builds the `headers` object of a message only when it is first
 * read; a caller that needs only the status and the body never pays for it.
 */
export class BufferedResponse implements HTTPResponse {
  readonly status: number;
  readonly body: Buffer;
  readonly stream: IncomingMessage | undefined;
  readonly #message: IncomingMessage;

  /** `streamed`: the body was left unread in the message, which becomes `stream`. */
  constructor(message: IncomingMessage, body: Buffer, streamed = false) {
    this.status = message.statusCode ?? 0;
    this.body = body;
    this.stream = streamed ? message : undefined;
    this.#message = message;
  }

  get headers(): IncomingHttpHeaders {
    return this.#message.headers;
  }
}

/**
 * The `Content-Length` a message declares, read from its raw header list (so that the `headers`
 * object is not built); `NaN` when there is none.
 */
export function declaredLength(raw: readonly string[]): number {
  const value = rawHeader(raw, 'content-length');
  return value === undefined ? NaN : Number(value);
}

/**
 * The first value of the header `name` (lower case) in a message's raw header list, without building
 * its `headers` object; `undefined` when there is none.
 */
export function rawHeader(raw: readonly string[], name: string): string | undefined {
  for (let i = 0; i < raw.length; i += 2) {
    const given = raw[i] as string;
    if (given.length === name.length && given.toLowerCase() === name) return raw[i + 1];
  }
  return undefined;
}
