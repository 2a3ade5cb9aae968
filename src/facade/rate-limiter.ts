/**
 * Upstream protection: a token bucket per source (and per caller when its policy sets a rate) and a cap
 * on calls in flight per source. A request over either is refused before it leaves, with the seconds
 * until a token is back (`Retry-After`) and the `RateLimit-*` figures of the IETF httpapi draft.
 * @module
 */

/** A bucket's setting. */
export interface Rate {
  readonly perSecond: number;
  readonly burst: number;
}

/** The verdict on one request. */
export interface Verdict {
  readonly allowed: boolean;
  /** The bucket's size (`RateLimit-Limit`). */
  readonly limit: number;
  /** Tokens left after this request (`RateLimit-Remaining`). */
  readonly remaining: number;
  /** Seconds until the bucket is full again (`RateLimit-Reset`). */
  readonly resetSeconds: number;
  /** When refused: seconds to wait (`Retry-After`), at least 1. */
  readonly retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Token buckets by key (`source:ehr`, `caller:key:app@ehr`). */
export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>();
  readonly #now: () => number;

  /** `now`: the clock in milliseconds. */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Takes one token from the bucket `key`, if there is one. */
  take(key: string, rate: Rate): Verdict {
    const now = this.#now();
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) this.#buckets.set(key, (bucket = { tokens: rate.burst, at: now }));
    bucket.tokens = Math.min(rate.burst, bucket.tokens + ((now - bucket.at) / 1000) * rate.perSecond);
    bucket.at = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    const resetSeconds = Math.ceil((rate.burst - bucket.tokens) / rate.perSecond);
    const retryAfterSeconds = allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / rate.perSecond));
    return { allowed, limit: rate.burst, remaining: Math.floor(bucket.tokens), resetSeconds, retryAfterSeconds };
  }
}

/** The `RateLimit-*` headers of a verdict (plus `Retry-After` when it refused). */
export function rateLimitHeaders(v: Verdict): Record<string, string> {
  return {
    'ratelimit-limit': String(v.limit),
    'ratelimit-remaining': String(v.remaining),
    'ratelimit-reset': String(v.resetSeconds),
    ...(v.allowed ? {} : { 'retry-after': String(v.retryAfterSeconds) }),
  };
}
