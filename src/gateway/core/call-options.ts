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

/**
 * The keys a call's options take, `create`'s, and the sync gateway's `create`'s (no signal, no retry);
 * any other is refused with the nearest of these.
 */
export const CALL_OPTION_KEYS = Object.freeze({
  call: keysOf<CallOptions>({ signal: true, retry: true }),
  create: keysOf<CreateOptions>({ signal: true, retry: true, ifNoneExist: true }),
  syncCreate: keysOf<Omit<CreateOptions, keyof CallOptions>>({ ifNoneExist: true }),
});

/**
 * Checks a call's options once (a `TypeError` naming the option, an unknown key refused with the
 * nearest known one; `create` takes `ifNoneExist` too) and gives the {@link CallScope} its FHIR requests
 * carry. Runs on every call: the key check is a `switch` over the object's keys that allocates nothing
 * unless it throws (the cases are typed against {@link CreateOptions}).
 */
export function callScope(options: CallOptions | undefined, create = false): CallScope {
  if (options !== undefined) {
    checkObject(options, 'options');
    for (const key in options) {
      switch (key as keyof CreateOptions) {
        case 'signal':
        case 'retry':
          continue;
        case 'ifNoneExist':
          if (create) continue;
      }
      if (Object.hasOwn(options, key)) onlyKnownKeys(options, create ? CALL_OPTION_KEYS.create : CALL_OPTION_KEYS.call, 'options');
    }
  }
  return { signal: signalOption(options?.signal, 'options.signal'), retry: booleanOption(options?.retry, 'options.retry', true) };
}
