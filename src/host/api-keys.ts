/**
 * Caller authentication with API keys: `Authorization: Bearer <key>` or `X-API-Key: <key>`, compared in
 * constant time. Keys are kept only as SHA-256 digests.
 * @module
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { keyDigest } from '../lib/key-digest.js';

/**
 * The keys of the `apiKeys` option, checked and copied; none when it is not given (the check is off).
 * The library reads no environment: `fhirgate serve` reads `FHIRGATE_API_KEYS` and passes the keys here.
 */
export function checkAPIKeys(option: readonly string[] | undefined): string[] {
  if (option === undefined) return [];
  if (!Array.isArray(option) || option.some((k) => typeof k !== 'string' || k.trim() === '')) {
    throw new TypeError('options.apiKeys must be an array of non-empty strings');
  }
  return [...option];
}

/** Checks request credentials against a fixed set of keys. */
export class APIKeyCheck {
  readonly #digests: readonly Buffer[];

  constructor(keys: readonly string[]) {
    this.#digests = keys.map(keyDigest);
  }

  /** True when the check is on (at least one key). */
  get enabled(): boolean {
    return this.#digests.length > 0;
  }

  /** True when a Bearer credential or the `X-API-Key` header matches a key. Every key is compared. */
  accepts(headers: IncomingHttpHeaders): boolean {
    const candidates: string[] = [];
    const auth = headers.authorization;
    const bearer = auth === undefined ? undefined : /^Bearer[ ]+(\S+)\s*$/i.exec(auth);
    if (bearer) candidates.push(bearer[1]!);
    const apiKey = headers['x-api-key'];
    if (typeof apiKey === 'string') candidates.push(apiKey);
    let ok = false;
    for (const candidate of candidates) {
      const given = keyDigest(candidate);
      for (const known of this.#digests) ok = timingSafeEqual(given, known) || ok;
    }
    return ok;
  }
}
