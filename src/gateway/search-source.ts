/**
 * One source's search, bounded by a time-out: the part of `aggregateSources` that talks to a gateway.
 * @module
 */
import { FhirgateError } from '../errors.js';
import type { Bundle, ResourceType } from '../fhir/index.js';
import type { SearchParams } from './core/search-params.js';

/**
 * What `aggregateSources` needs of a gateway. Both `AsyncFHIRGateway` (a Promise) and the synchronous
 * `FHIRGateway` (a value; its sources are then searched one after the other) fit.
 *
 * @example
 * ```ts
 * const fake: SearchingGateway = { search: async () => ({ resourceType: 'Bundle', type: 'searchset' }) };
 * ```
 */
export interface SearchingGateway {
  search(type: ResourceType, params: SearchParams, source: string, options: { signal: AbortSignal }): Bundle | Promise<Bundle>;
}

/**
 * One search of {@link searchSource}.
 *
 * @example
 * ```ts
 * const one: SourceSearch = { type: 'Observation', params: { patient: '1' }, source: 'epic', timeoutSeconds: 10, signal: undefined };
 * ```
 */
export interface SourceSearch {
  readonly type: ResourceType;
  readonly params: SearchParams;
  readonly source: string;
  /** The time-out, in seconds (> 0). */
  readonly timeoutSeconds: number;
  /** The caller's signal, when there is one. */
  readonly signal: AbortSignal | undefined;
}

/**
 * Searches one source with a signal that aborts on the caller's signal or after the time-out. Rejects
 * with `ERR_TIMEOUT` when the time-out fired (whatever the gateway made of the abort), `ERR_ABORTED`
 * when the caller aborted, `ERR_FHIR_RESPONSE` when the answer is not a Bundle, or the gateway's own
 * error. A gateway that ignores its signal is not waited for past the time-out.
 *
 * @example
 * ```ts
 * const bundle = await searchSource(gw, { type: 'Observation', params: { patient: '1' }, source: 'epic', timeoutSeconds: 10, signal: undefined });
 * ```
 */
export async function searchSource(gw: SearchingGateway, one: SourceSearch): Promise<Bundle> {
  // Like AbortSignal.timeout, but the timer is cleared when the search ends, and it keeps the event
  // loop alive while it runs, so a source that ignores its signal still ends in a time-out.
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new DOMException('source time-out', 'TimeoutError')), Math.ceil(one.timeoutSeconds * 1000));
  const signal = one.signal === undefined ? timeout.signal : AbortSignal.any([one.signal, timeout.signal]);
  const aborted = rejectOnAbort(signal);
  try {
    const answer = await Promise.race([Promise.resolve().then(() => gw.search(one.type, one.params, one.source, { signal })), aborted.promise]);
    if (typeof answer !== 'object' || answer === null || answer.resourceType !== 'Bundle') {
      throw new FhirgateError('ERR_FHIR_RESPONSE', 'the search answer is not a Bundle');
    }
    return answer;
  } catch (err) {
    // Whatever the gateway made of it, our own time-out firing means the source was too slow.
    if (timeout.signal.aborted && one.signal?.aborted !== true) throw new FhirgateError('ERR_TIMEOUT', 'time-out', { cause: err });
    throw err;
  } finally {
    clearTimeout(timer);
    aborted.dispose();
  }
}

function rejectOnAbort(signal: AbortSignal): { promise: Promise<never>; dispose(): void } {
  let onAbort = (): void => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(new FhirgateError('ERR_ABORTED', 'aborted', { cause: signal.reason }));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

