/**
 * Taking known credentials out of text an upstream sent (a token endpoint's `error_description`, an
 * OperationOutcome's `diagnostics`) before that text enters an error or a log line. Upstreams that echo
 * a request echo it in whatever form they received it, so every form is removed: raw, percent-encoded
 * (either case of hex), form-encoded (`+` for a space), JSON-escaped, and for a client secret the
 * `Authorization: Basic` base64 of `id:secret`.
 * @module
 */

/** What a removed credential is replaced with. */
export const REDACTED = '[redacted]';

/** `application/x-www-form-urlencoded` encoding of one value (a space is `+`). */
const formEncoded = (value: string): string => new URLSearchParams([['', value]]).toString().slice(1);

/** Every form in which `secret` may come back, longest first; nothing for an empty secret. */
function formsOf(secret: string): string[] {
  if (secret === '') return [];
  let encoded: string[];
  try {
    encoded = [encodeURIComponent(secret), formEncoded(secret)];
  } catch {
    encoded = []; // a lone surrogate has no percent-encoded form
  }
  const lower = encoded.map((e) => e.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
  return [secret, ...encoded, ...lower, JSON.stringify(secret).slice(1, -1)];
}

/** The known credentials of one exchange. */
export interface KnownCredentials {
  /** Secret values (a client secret, a signed assertion, an access token); empty strings are ignored. */
  readonly secrets?: readonly (string | undefined)[];
  /** `[id, secret]` pairs sent as HTTP Basic: the base64 of both the form-encoded and the raw pair is removed. */
  readonly basic?: readonly (readonly [string, string])[];
}

/** Removes every known credential from upstream text. Build one per exchange; it is cheap. */
export class SecretRedactor {
  readonly #pattern: RegExp | undefined;

  constructor(known: KnownCredentials) {
    const forms = new Set<string>();
    for (const secret of known.secrets ?? []) if (secret !== undefined) for (const f of formsOf(secret)) forms.add(f);
    for (const [id, secret] of known.basic ?? []) {
      if (secret === '') continue;
      forms.add(Buffer.from(`${formEncoded(id)}:${formEncoded(secret)}`).toString('base64'));
      forms.add(Buffer.from(`${id}:${secret}`).toString('base64'));
    }
    const sorted = [...forms].filter((f) => f !== '').sort((a, b) => b.length - a.length);
    this.#pattern = sorted.length === 0 ? undefined : new RegExp(sorted.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  }

  /**
   * `value` without the credentials, then cut to `maxLength` characters (ending in `…` when cut). Redacting
   * comes first, so a cut never leaves part of a credential behind.
   */
  text(value: string, maxLength = Infinity): string {
    const clean = this.#pattern === undefined ? value : value.replace(this.#pattern, REDACTED);
    return clean.length <= maxLength ? clean : `${clean.slice(0, Math.max(0, maxLength - 1))}…`;
  }

  /** A copy of a JSON value with every string redacted (an OperationOutcome kept on an error). */
  json(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.json(v));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.text(k), this.json(v)]));
    }
    return value;
  }
}
