/**
 * What happens to the rest of a request body when the answer goes out before the body was read to its
 * end (a 401, a 404, a refused SOAP envelope...). Left alone, unread bytes would sit in the socket and the
 * next request on that keep-alive connection would never be parsed. So the host either drains them, up
 * to the body limit, and keeps the connection, or answers `Connection: close` and closes it.
 * @module
 */
import type { IncomingMessage } from 'node:http';

/**
 * Settles the unread part of `req`'s body before an answer is written. Returns the extra headers the
 * answer needs: none when the body was read or can be drained (at most `limit` more bytes: a declared
 * `Content-Length` within `limit`, or a chunked body, which is cut with the socket once it passes
 * `limit`); `connection: close` when the declared length is over `limit`, in which case Node closes the
 * socket after the answer.
 */
export function settleBody(req: IncomingMessage, limit: number): Record<string, string> {
  if (req.complete || req.readableEnded || req.destroyed) return {};
  const declared = req.headers['content-length'];
  // No Content-Length and no Transfer-Encoding: there is no body (RFC 9112 §6.3), nothing to settle.
  if (declared === undefined && req.headers['transfer-encoding'] === undefined) return {};
  if (declared !== undefined && Number(declared) > limit) return { connection: 'close' };
  let drained = 0;
  req.removeAllListeners('readable').removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > limit) req.socket.destroy();
  });
  req.resume();
  return {};
}
