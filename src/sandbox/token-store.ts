/**
 * The access tokens the sandbox issued and the assertion `jti`s it has seen. Tokens are kept by their
 * SHA-256 digest only, so a lookup compares digests and never the token text itself.
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';

interface Issued {
  expiresAt: number;
}

/** What a bearer token turned out to be. */
export type TokenCheck = 'valid' | 'expired' | 'unknown';

function digest(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** Issues and checks opaque bearer tokens; remembers assertion ids to refuse replays. */
export class TokenStore {
  readonly #tokens = new Map<string, Issued>();
  readonly #jtis = new Map<string, number>();

  /** A new token, valid for `lifetimeSeconds`. */
  issue(lifetimeSeconds: number): string {
    this.#purge();
    const token = randomBytes(32).toString('base64url');
    this.#tokens.set(digest(token), { expiresAt: Date.now() + lifetimeSeconds * 1000 });
    return token;
  }

  /** Whether a presented token is one of ours and unexpired. */
  check(token: string): TokenCheck {
    const issued = this.#tokens.get(digest(token));
    if (issued === undefined) return 'unknown';
    return issued.expiresAt > Date.now() ? 'valid' : 'expired';
  }

  /** Makes every token issued so far expired. */
  expireAll(): void {
    const now = Date.now();
    for (const issued of this.#tokens.values()) issued.expiresAt = Math.min(issued.expiresAt, now);
  }

  /**
   * Records an assertion id for a client until `expiresAtMs`; false when it was already used and has
   * not expired yet (a replay).
   */
  useJti(clientId: string, jti: string, expiresAtMs: number): boolean {
    const now = Date.now();
    for (const [key, until] of this.#jtis) if (until <= now) this.#jtis.delete(key);
    const key = `${clientId}\u0000${jti}`;
    if (this.#jtis.has(key)) return false;
    this.#jtis.set(key, expiresAtMs);
    return true;
  }

  /** Forgets tokens that expired more than a minute ago (kept that long to answer "expired", not "unknown"). */
  #purge(): void {
    const horizon = Date.now() - 60_000;
    for (const [key, issued] of this.#tokens) if (issued.expiresAt < horizon) this.#tokens.delete(key);
  }
}
