/**
 * A raw HTTP/1.1 exchange over `net`, so that request lines no HTTP client would send (bad `%` escapes,
 * NUL, raw UTF-8, huge targets) reach a server. Reads exactly one answer.
 * @module
 */
import { connect } from 'node:net';

/**
 * One parsed answer.
 *
 * @example
 * ```ts
 * const { status, headers, body } = await rawExchange(port, request);
 * ```
 */
export interface RawAnswer {
  readonly status: number;
  /** Header names in lower case; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

type Parsed = { done: false } | { done: true; answer: RawAnswer };

function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine = '', ...lines] = head.split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(statusLine);
  if (match === null) throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine.slice(0, 200))}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`malformed header line: ${JSON.stringify(line.slice(0, 200))}`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { status: Number(match[1]), headers };
}

/** Parses what arrived so far; `ended` says the server closed. `head` says the body is to be ignored (HEAD). */
function parse(data: Buffer, ended: boolean, head: boolean): Parsed {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) {
    if (ended) throw new Error(`the connection closed ${data.length === 0 ? 'without an answer' : `mid-head: ${JSON.stringify(data.toString('latin1').slice(0, 200))}`}`);
    return { done: false };
  }
  const { status, headers } = parseHead(data.subarray(0, end).toString('latin1'));
  const rest = data.subarray(end + 4);
  if (head || status === 204 || status === 304) return { done: true, answer: { status, headers, body: Buffer.alloc(0) } };
  if (headers['transfer-encoding'] !== undefined) throw new Error('a chunked answer: the servers under test send Content-Length');
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (rest.length >= length) return { done: true, answer: { status, headers, body: rest.subarray(0, length) } };
  } else if (ended) {
    return { done: true, answer: { status, headers, body: rest } };
  }
  if (ended) throw new Error(`the connection closed mid-body (status ${status})`);
  return { done: false };
}

/**
 * Percent-encodes (as UTF-8) what Node's HTTP parser refuses in a request target: controls, space,
 * DEL and non-ASCII. Lone surrogates become `%EF%BF%BD`.
 *
 * @example
 * ```ts
 * wireSafe('/a b/é'); // '/a%20b/%C3%A9'
 * ```
 */
export function wireSafe(target: string): string {
  return target.replace(/[^\x21-\x7e]/gu, (c) => [...Buffer.from(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
}

/**
 * Sends `request` as is to `127.0.0.1:port` and resolves with the first answer. Rejects when the server
 * closes without a complete answer, or after `timeoutMs` (a safety net: the caller reports a hang).
 *
 * @example
 * ```ts
 * const answer = await rawExchange(port, 'GET /a%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
 * answer.status; // 400
 * ```
 */
export function rawExchange(port: number, request: string | Uint8Array, options: { head?: boolean; timeoutMs?: number } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (ended: boolean): void => {
      if (settled) return;
      try {
        const parsed = parse(Buffer.concat(chunks), ended, options.head === true);
        if (!parsed.done) return;
        settled = true;
        resolve(parsed.answer);
      } catch (error) {
        settled = true;
        reject(error);
      }
      socket.destroy();
    };
    socket.setTimeout(options.timeoutMs ?? 20_000, () => {
      if (!settled) reject(new Error(`no complete answer within ${options.timeoutMs ?? 20_000} ms`));
      settled = true;
      socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', (error) => {
      // A reset after a complete answer is harmless; before one, `close` reports what arrived.
      if (!settled && chunks.length === 0) {
        settled = true;
        reject(new Error(`connection failed: ${error.message}`));
      }
    });
    socket.write(request);
  });
}
