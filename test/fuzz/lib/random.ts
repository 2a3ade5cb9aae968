/**
 * A small seeded random source for the fuzz tests (mulberry32): the same seed gives the same inputs on
 * every machine, so a failure found in CI is reproduced locally from its seed.
 * @module
 */

/**
 * Pieces that tend to break parsers: separators, bad escapes, quotes, controls, lone surrogates,
 * prototype names.
 *
 * @example
 * ```ts
 * const hook = rng.pick(NASTY_CHARS); // maybe 'constructor'
 * ```
 */
export const NASTY_CHARS = [
  '%', '%%', '%2', '%zz', '%00', '%2F', '%25', '%C0%AF', '%E0%A4%A', '%FF', '?', '#', '&', '=', ';', '/', '//', '\\', '..', '.',
  ':', '@', '+', ' ', '\t', '\0', '\u0001', '\u007f', '"', "'", '<', '>', '{', '}', '[', ']', '|', '`', '^', '~', ',', '*',
  '\u00e9', '\u00a0', '\u2028', '\u202e', '\ufeff', '\ufffd', '\ud800', '\udc00', '\ud83d\ude00', '\u0301', '\u212a',
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty',
] as const;

/** Sets an own data property, even for `__proto__` (as `JSON.parse` would). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const ASCII_PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');

/**
 * A deterministic pseudo-random generator with helpers for building hostile input.
 *
 * @example
 * ```ts
 * const rng = new Random(42);
 * rng.int(10);           // the same number on every run with seed 42
 * rng.string(8);         // printable ASCII, nasty characters now and then
 * ```
 */
export class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, max). */
  int(max: number): number {
    return Math.floor(this.next() * max);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  /** A length that is usually small and now and then large (up to `max`). */
  size(max: number): number {
    return this.chance(0.9) ? this.int(Math.min(max, 16) + 1) : this.int(max + 1);
  }

  /** A string of `length` characters drawn from `alphabet`, with nasty pieces mixed in. */
  string(length = this.size(64), alphabet: string = ASCII_PRINTABLE): string {
    let out = '';
    for (let i = 0; i < length; i++) out += this.chance(0.1) ? this.pick(NASTY_CHARS) : alphabet.charAt(this.int(alphabet.length));
    return out;
  }

  /** `length` random bytes. */
  bytes(length = this.size(256)): Buffer {
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i++) out[i] = this.int(256);
    return out;
  }

  /** Applies one to `rounds` random edits (insert, delete, replace, duplicate, truncate, swap) to `text`. */
  mutate(text: string, rounds = 1 + this.int(4)): string {
    let s = text;
    for (let r = 0; r < rounds; r++) {
      const at = this.int(s.length + 1);
      const span = 1 + this.int(Math.min(16, Math.max(1, s.length)));
      switch (this.int(7)) {
        case 0: s = s.slice(0, at) + this.pick(NASTY_CHARS) + s.slice(at); break;
        case 1: s = s.slice(0, at) + s.slice(at + span); break;
        case 2: s = s.slice(0, at) + this.string(1 + this.int(4)) + s.slice(at + span); break;
        case 3: s = s.slice(0, at) + s.slice(at, at + span).repeat(2 + this.int(50)) + s.slice(at + span); break;
        case 4: s = s.slice(0, at); break;
        case 5: s = s.slice(at) + s.slice(0, at); break;
        default: s = s.slice(0, at) + String.fromCharCode(this.int(0x10000)) + s.slice(at); break;
      }
    }
    return s;
  }

  /** Applies one to `rounds` random byte edits (bit flip, set, insert, delete, truncate) to a copy of `bytes`. */
  mutateBytes(bytes: Uint8Array, rounds = 1 + this.int(4)): Buffer {
    let b = Buffer.from(bytes);
    for (let r = 0; r < rounds; r++) {
      const at = this.int(b.length + 1);
      switch (this.int(5)) {
        case 0: if (at < b.length) b[at] = (b[at] as number) ^ (1 << this.int(8)); break;
        case 1: if (at < b.length) b[at] = this.pick([0x00, 0x80, 0xc0, 0xc3, 0xe0, 0xed, 0xf0, 0xf8, 0xfe, 0xff, 0x26, 0x3c, 0x3e]); break;
        case 2: b = Buffer.concat([b.subarray(0, at), this.bytes(1 + this.int(8)), b.subarray(at)]); break;
        case 3: b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1 + this.int(32))]); break;
        default: b = b.subarray(0, at); break;
      }
    }
    return b;
  }

  /** `bytes` cut into one to eight pieces at random places (a multi-byte character may be split). */
  pieces(bytes: Buffer): Buffer[] {
    const cuts = Array.from({ length: this.int(8) }, () => this.int(bytes.length + 1)).sort((a, b) => a - b);
    const ends = [...cuts, bytes.length];
    return [0, ...cuts].map((from, i) => bytes.subarray(from, ends[i]));
  }

  /** A random JSON value, nested at most `depth` levels. */
  json(depth = 3): unknown {
    const kind = this.int(depth > 0 ? 8 : 6);
    switch (kind) {
      case 0: return null;
      case 1: return this.chance(0.5);
      case 2: return this.pick([0, -1, 1.5, 1e308, -1e-308, 2 ** 53, 139, 140]);
      case 3: return this.string(this.size(200));
      case 4: return '';
      case 5: return this.pick(['info', 'warning', 'critical', 'Bearer', 'create', 'delete', 'smart', 'absolute', 'Patient/1', 'https://x.example/']);
      case 6: return Array.from({ length: this.size(6) }, () => this.json(depth - 1));
      default: {
        const out: Record<string, unknown> = {};
        for (let i = this.size(6); i > 0; i--) setOwn(out, this.chance(0.7) ? this.string(this.size(12)) : this.pick(NASTY_CHARS), this.json(depth - 1));
        return out;
      }
    }
  }

  /**
   * A copy of a JSON value with one to `rounds` edits at random places: a member replaced by random JSON,
   * removed, or added; an array item dropped or duplicated.
   */
  mutateJson(value: unknown, rounds = 1 + this.int(3)): unknown {
    let out = structuredClone(value);
    for (let r = 0; r < rounds; r++) out = this.#editOnce(out);
    return out;
  }

  #editOnce(value: unknown): unknown {
    const containers: (Record<string, unknown> | unknown[])[] = [];
    const walk = (v: unknown): void => {
      if (typeof v !== 'object' || v === null) return;
      containers.push(v as Record<string, unknown> | unknown[]);
      for (const child of Object.values(v)) walk(child);
    };
    walk(value);
    if (containers.length === 0 || this.chance(0.05)) return this.json();
    const target = this.pick(containers);
    if (Array.isArray(target)) {
      const i = this.int(target.length + 1);
      if (this.chance(0.3) && target.length > 0) target.splice(Math.min(i, target.length - 1), 1);
      else if (this.chance(0.3) && target.length > 0) target.push(...Array.from({ length: 1 + this.int(3) }, () => structuredClone(target[0])));
      else target[Math.min(i, target.length)] = this.json(2);
      return value;
    }
    const keys = Object.keys(target);
    const key = keys.length > 0 && this.chance(0.8) ? this.pick(keys) : this.pick([...NASTY_CHARS, 'extra']);
    if (this.chance(0.25)) delete target[key];
    else setOwn(target, key, this.json(2));
    return value;
  }
}
