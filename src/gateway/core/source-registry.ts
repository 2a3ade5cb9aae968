/**
 * The named sources of a gateway, in registration order.
 * @module
 */
import type { CheckedTLS } from '../../http/tls-options.js';
import type { TokenManager } from '../../auth/token-manager.js';
import { FhirgateError } from '../../errors.js';
import type { SourceBase } from './resource-path.js';

/** One registered source. Holds a token manager (and through it a secret): never serialise it. */
export interface Source {
  readonly name: string;
  /** The FHIR base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** The same, parsed once. */
  readonly base: SourceBase;
  /** Credentials go to this origin only. */
  readonly origin: string;
  /** Milliseconds a request may take. */
  readonly timeoutMs: number;
  /** Its TLS settings (a private CA, a client certificate), or `undefined` for Node's defaults. */
  readonly tls: CheckedTLS | undefined;
  /** `undefined` for a public server. */
  readonly tokens: TokenManager | undefined;
  /** HTTP requests sent to the FHIR server. */
  requests: number;
  /** Requests that failed (no answer, or a non-2xx answer that was not expected). */
  errors: number;
}

/** Sources by name. Re-adding a name replaces the source and keeps its place in the order. */
export class SourceRegistry {
  readonly #sources = new Map<string, Source>();

  /** Adds or replaces a source; returns the one it replaced. */
  add(source: Source): Source | undefined {
    const old = this.#sources.get(source.name);
    this.#sources.set(source.name, source);
    return old;
  }

  /**
   * The source called `name`, or the first registered one when `name` is `undefined`.
   * `ERR_NO_SOURCES` when there is none, `ERR_UNKNOWN_SOURCE` (listing the names) for an unknown name.
   */
  get(name: string | undefined): Source {
    if (name !== undefined && typeof name !== 'string') throw new TypeError('source must be a string');
    if (this.#sources.size === 0) {
      throw new FhirgateError('ERR_NO_SOURCES', 'the gateway has no sources; call addSource(name, connectionString) first');
    }
    if (name === undefined) return this.#sources.values().next().value as Source;
    const source = this.#sources.get(name);
    if (source === undefined) {
      throw new FhirgateError('ERR_UNKNOWN_SOURCE', `unknown source ${JSON.stringify(name.slice(0, 100))}; registered: ${this.names.join(', ')}`);
    }
    return source;
  }

  /** The names, in registration order. */
  get names(): string[] {
    return [...this.#sources.keys()];
  }

  /** Every source, in registration order. */
  all(): Source[] {
    return [...this.#sources.values()];
  }
}
