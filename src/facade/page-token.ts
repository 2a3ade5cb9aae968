/**
 * Opaque page tokens: what a `next`/`previous` link of the facade carries instead of the upstream's
 * link. The content (the source, the upstream link, the caller, the expiry) is encrypted (AES-256-CTR,
 * so that the upstream's address never shows) and signed (HMAC-SHA256 over the IV and the ciphertext:
 * encrypt-then-MAC, two keys derived from the secret with HKDF). The facade follows a link only from a
 * token that verifies, has not expired and names the same caller, so a page cannot skip the policy
 * (the google gateway allow-lists `_getpages`; this does not).
 * @module
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { FhirgateError } from '../errors.js';

/**
 * What a token holds. `pages` has one position per source (a single source's link, or the federated
 * base's position in each source).
 */
export interface PageState {
  readonly caller: string;
  /** The searched type, for the policy and the audit (`undefined` for a system-wide search). */
  readonly type: string | undefined;
  /** The entries per page asked for (the federated base). */
  readonly count?: number;
  /** The merge order of the federated base (`_sort`), when every source sorts. */
  readonly sort?: string;
  /** True for a token of the federated base (its positions are not one source's links). */
  readonly federated?: boolean;
  /** Of a `Patient/$everything` token: what the first page resolved and asked (see `patient-everything.ts`). */
  readonly everything?: EverythingState;
  /**
   * Per source (per source and type for `$everything`): its link (`''`: its first page, `null`: done), the
   * entries of that page used, and the local id of the caller's patient there when the token was made (a
   * page is served only while the caller's patient is still that id there: see `openPageToken`).
   */
  readonly pages: readonly { readonly source: string; readonly type?: string; readonly link: string | null; readonly skip: number; readonly patient?: string }[];
}

/** What a `$everything` page token carries besides the positions. */
export interface EverythingState {
  /** The resolution asked: `system|value`, or `<source>/<id>`. */
  readonly query: string;
  /** The patient's local id per source asked (checked again on every page: a changed crosswalk ends the paging). */
  readonly patients: Readonly<Record<string, string>>;
  /** Each source's own parameters (`_count`, `_since` or `_lastUpdated`, `_type`). */
  readonly params: string;
}

/** Signs and opens page tokens. */
export class PageTokens {
  readonly #cipherKey: Buffer;
  readonly #macKey: Buffer;
  readonly #ttlMs: number;
  readonly #now: () => number;

  /** `secret` undefined: a random key (tokens die with the process); `ttlSeconds`: their lifetime. */
  constructor(secret: string | undefined, ttlSeconds: number, now: () => number = Date.now) {
    const secretKey = secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8');
    this.#cipherKey = Buffer.from(hkdfSync('sha256', secretKey, 'fhirgate', 'page-token cipher', 32));
    this.#macKey = Buffer.from(hkdfSync('sha256', secretKey, 'fhirgate', 'page-token mac', 32));
    this.#ttlMs = ttlSeconds * 1000;
    this.#now = now;
  }

  /** A token for `state`, valid for the configured lifetime. */
  sign(state: PageState): string {
    const iv = randomBytes(16);
    const cipher = createCipheriv('aes-256-ctr', this.#cipherKey, iv);
    const plain = Buffer.from(JSON.stringify({ ...state, exp: this.#now() + this.#ttlMs }), 'utf8');
    const body = Buffer.concat([iv, cipher.update(plain), cipher.final()]).toString('base64url');
    return `${body}.${this.#mac(body)}`;
  }

  /** The state of a token of `callerId`; `ERR_PAGE_TOKEN` (400) when malformed, tampered with, expired or another caller's. */
  open(token: string, callerId: string): PageState {
    const [body, mac, extra] = token.split('.');
    if (body === undefined || mac === undefined || extra !== undefined) throw bad('malformed');
    const expected = Buffer.from(this.#mac(body), 'utf8');
    const given = Buffer.from(mac, 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad('bad signature');
    const sealed = Buffer.from(body, 'base64url');
    const decipher = createDecipheriv('aes-256-ctr', this.#cipherKey, sealed.subarray(0, 16));
    const state = JSON.parse(Buffer.concat([decipher.update(sealed.subarray(16)), decipher.final()]).toString('utf8')) as PageState & { exp: number };
    if (typeof state.exp !== 'number' || state.exp < this.#now()) throw bad('expired');
    if (state.caller !== callerId) throw bad('issued to another caller');
    return state;
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#macKey).update(body).digest('base64url');
  }
}

const bad = (why: string): FhirgateError => new FhirgateError('ERR_PAGE_TOKEN', `the page token is not valid (${why}); search again`);
