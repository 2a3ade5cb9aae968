/**
 * The digest an API key is kept as and a presented key is compared by (in constant time, with
 * `timingSafeEqual`): its SHA-256 as 64 hex digits in a `Buffer`, one hash per presented key.
 *
 * Why hex (issue 38 item 2): `crypto.hash(…, 'buffer')` gives each digest an `ArrayBuffer` of its own,
 * and a `perf` profile of the facade's read (Node 24) found that allocation, not SHA-256, to be most of
 * the key check; the hex string copied into a pooled `Buffer` took 2.1–3.1 µs against 4.1–8.4 µs for the
 * `Buffer` digest on Node 20 and 24 (a million-call microbenchmark, two rounds each).
 * @module
 */
import { hash } from 'node:crypto';

/** The SHA-256 of `value` (UTF-8) as 64 hex digits in a `Buffer`: what keys are kept as and compared by. */
export function keyDigest(value: string): Buffer {
  return Buffer.from(hash('sha256', value, 'hex'), 'latin1');
}
