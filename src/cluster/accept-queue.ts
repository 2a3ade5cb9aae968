/**
 * What the kernel holds for a listening socket that no process has accepted yet, read from Linux's
 * `/proc/net/tcp` (or `tcp6`) of the process's network namespace: the connections completed into the
 * listener's accept queue (the `rx_queue` of its own line, found by the socket's inode) and the
 * handshakes still under way on its port (`SYN_RECV` lines). Closing the last listener of a port resets
 * both; a listener whose queue reads empty can close without resetting anyone. Linux only: elsewhere, or
 * where `/proc` cannot be read, there is no reader and the caller closes as it always did.
 * @module
 */
import { fstatSync, readFileSync } from 'node:fs';
import type { Server } from 'node:net';

/** One reading of a listener's queue. */
export interface AcceptQueue {
  /** Connections completed into its accept queue, not accepted yet. */
  readonly queued: number;
  /** Handshakes under way on its port (`SYN_RECV`, of any listener of the port). */
  readonly handshaking: number;
}

/** Whether `queue` was read and holds nothing: no connection queued, no handshake under way (a listener can then close without resetting anyone). */
export function queueEmpty(queue: AcceptQueue | undefined): boolean {
  return queue !== undefined && queue.queued === 0 && queue.handshaking === 0;
}

/** `SYN_RECV` in the `st` column of `/proc/net/tcp`. */
const SYN_RECV = '03';

/** The listening socket's file descriptor (libuv's handle has it on Unix), or `undefined`. */
function fdOf(listener: Server): number | undefined {
  const fd = (listener as unknown as { _handle?: { fd?: unknown } | null })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/**
 * A function that reads `listener`'s queue now, or a reason why this listener's queue cannot be read
 * (not Linux, no `/proc`, no file descriptor, its line not found). The function returns `undefined` when
 * a later read fails (the listener closed, `/proc` went away).
 */
export function acceptQueueReader(listener: Server): (() => AcceptQueue | undefined) | string {
  if (process.platform !== 'linux') return `it is read from Linux's /proc (this is ${process.platform})`;
  const fd = fdOf(listener);
  const address = listener.address();
  if (fd === undefined || address === null || typeof address !== 'object') return 'the listener has no socket';
  let inode: string;
  try {
    inode = String(fstatSync(fd).ino);
  } catch (error) {
    return `fstat of the listener failed (${(error as NodeJS.ErrnoException).code ?? 'unknown'})`;
  }
  const table = address.family === 'IPv6' ? '/proc/net/tcp6' : '/proc/net/tcp';
  const port = `:${address.port.toString(16).toUpperCase().padStart(4, '0')}`;
  const read = (): AcceptQueue | undefined => {
    let text: string;
    try {
      text = readFileSync(table, 'latin1');
    } catch {
      return undefined;
    }
    let queued: number | undefined;
    let handshaking = 0;
    // Columns: sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
    for (const line of text.split('\n')) {
      const fields = line.trim().split(/\s+/);
      if (fields[9] === inode) queued = parseInt(fields[4]?.split(':')[1] ?? '', 16);
      else if (fields[3] === SYN_RECV && fields[1]?.endsWith(port) === true) handshaking += 1;
    }
    return queued === undefined || Number.isNaN(queued) ? undefined : { queued, handshaking };
  };
  return read() === undefined ? `its line in ${table} was not found` : read;
}
