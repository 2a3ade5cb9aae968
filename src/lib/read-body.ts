/**
 * Reading request bodies under a byte limit, without ever destroying the socket (so that a 413 can
 * still be sent). Used by the host and by the sandbox.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { FhirgateError } from '../errors.js';

function tooLarge(limit: number): FhirgateError {
  return new FhirgateError('ERR_BODY_TOO_LARGE', `the request body is larger than ${limit} bytes`, { status: 413 });
}

/** Resolves when `req` may have data, has ended or was closed; rejects on a stream error. */
function readable(req: IncomingMessage): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: unknown) => {
      req.off('readable', done).off('end', done).off('close', done).off('error', done);
      if (err instanceof Error) reject(err);
      else resolve();
    };
    req.on('readable', done).on('end', done).on('close', done).on('error', done);
  });
}

/**
 * The body of `req` chunk by chunk. Rejects with `ERR_BODY_TOO_LARGE` (413) as soon as the declared
 * `Content-Length` or the bytes received pass `limit`, and with `ERR_ABORTED` when the client goes away.
 */
export async function* readChunks(req: IncomingMessage, limit: number): AsyncGenerator<Buffer, void, undefined> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) throw tooLarge(limit);
  let total = 0;
  for (;;) {
    const chunk = req.read() as Buffer | null;
    if (chunk !== null) {
      total += chunk.length;
      if (total > limit) throw tooLarge(limit);
      yield chunk;
    } else if (req.readableEnded) {
      return;
    } else if (req.destroyed) {
      throw new FhirgateError('ERR_ABORTED', 'the client went away while sending the body');
    } else {
      try {
        await readable(req);
      } catch (cause) {
        throw new FhirgateError('ERR_ABORTED', 'the client went away while sending the body', { cause });
      }
    }
  }
}

/** The whole body of `req` (see {@link readChunks} for the limit and errors). */
export async function readBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of readChunks(req, limit)) chunks.push(chunk);
  return Buffer.concat(chunks);
}
