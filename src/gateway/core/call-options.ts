/**
 * The options of one gateway call, and {@link callScope}, their one check.
 * @module
 */
import { booleanOption, checkObject, keysOf, onlyKnownKeys, signalOption } from '../../lib/options.js';
import type { SearchParams } from './search-params.js';

/**
 * The last argument of every gateway call.
 *
 * @example
 * ```ts
 * await gw.read('Patient', '123', 'epic', { signal: AbortSignal.timeout(5_000), retry: false });
 * ```
 */
export interface CallOptions {
  /** Aborts the call (`ERR_ABORTED`; `ERR_TIMEOUT` when the reason is a `TimeoutError`). */
  signal?: AbortSignal;
  /** `false` sends each request of this call once, whatever the gateway's retry options. */
  retry?: boolean;
}

/**
 * Options of `create`.
 *
 * @example
 * ```ts
 * await gw.create(patient, 'epic', { ifNoneExist: { identifier: 'http://hospital.example/mrn|123' } });
 * ```
 */
export interface CreateOptions extends CallOptions {
  /**
   * Makes the create conditional (`If-None-Exist`): the query part of a search (`identifier=sys|123`,
   * no leading `?`) or search parameters. The server creates only when nothing matches; one match is
   * returned as it is (200), several are `ERR_FHIR_HTTP` 412.
   */
  ifNoneExist?: string | SearchParams;
}

/**
 * What one public gateway call hands down to every FHIR request it makes: its abort signal and its
 * retry setting (`retry: false` sends each request once, whatever the gateway's retry options).
 */
export interface CallScope {
  readonly signal: AbortSignal | undefined;
  readonly retry: boolean;
}

/** The keys of each call's options, typed against their interfaces (a lookup, not a list: see {@link callScope}). */
const CALL_KEYS: { readonly [K in keyof Required<CallOptions>]: true } = Object.freeze({ signal: true, retry: true });
const CREATE_KEYS: { readonly [K in keyof Required<CreateOptions>]: true } = Object.freeze({ ...CALL_KEYS, ifNoneExist: true });

/**
 * The keys a call's options take, `create`'s, and the sync gateway's `create`'s (no signal, no retry);
 * any other is refused with the nearest of these.
 */
export const CALL_OPTION_KEYS = Object.freeze({
  call: keysOf<CallOptions>(CALL_KEYS),
  create: keysOf<CreateOptions>(CREATE_KEYS),
  syncCreate: keysOf<Omit<CreateOptions, keyof CallOptions>>({ ifNoneExist: true }),
});

/**
 * Checks a call's options once (a `TypeError` naming the option, an unknown key refused with the
 * nearest known one; `create` takes `ifNoneExist` too) and gives the {@link CallScope} its FHIR requests
 * carry. Runs on every call: the key check allocates nothing unless it throws.
 */
export function callScope(options: CallOptions | undefined, create = false): CallScope {
  if (options !== undefined) {
    checkObject(options, 'options');
    const known = create ? CREATE_KEYS : CALL_KEYS;
    for (const key in options) {
      if (!Object.hasOwn(known, key) && Object.hasOwn(options, key)) onlyKnownKeys(options, create ? CALL_OPTION_KEYS.create : CALL_OPTION_KEYS.call, 'options');
    }
  }
  return { signal: signalOption(options?.signal, 'options.signal'), retry: booleanOption(options?.retry, 'options.retry', true) };
}
