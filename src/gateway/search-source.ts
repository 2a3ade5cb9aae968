/**
 * One source's search, bounded by a time-out: the part of `aggregateSources` that talks to a gateway.
 * @module
 */
import { FhirgateError } from '../errors.js';
import type { Bundle, ResourceType } from '../fhir/index.js';
import { Deadline, type EndListener } from '../http/deadline.js';
import type { SearchParams } from './core/search-params.js';

/**
 * What `aggregateSources` needs of a gateway. Both `AsyncFHIRGateway` (a Promise) and the synchronous
 * `FHIRGateway` (a value; its sources are then searched one after the other) fit.
 */
export interface SearchingGateway {
  search(type: ResourceType, params: SearchParams, source: string, options: { signal: AbortSignal }): Bundle | Promise<Bundle>;
}

/** One search of {@link searchSource}. */
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
 * Searches one source with a signal that aborts on the caller's signal or after the time-out, measured
 * by the transport's own {@link Deadline} like every outbound request's (a time-out of a second or more
 * runs on the shared half-second tick). Rejects with `ERR_TIMEOUT` when the time-out fired (whatever
 * the gateway made of the abort), `ERR_ABORTED` when the caller aborted, `ERR_FHIR_RESPONSE` when the
 * answer is not a Bundle, or the gateway's own error. A gateway that ignores its signal is not waited
 * for past the time-out.
 */
export async function searchSource(gw: SearchingGateway, one: SourceSearch): Promise<Bundle> {
  const deadline = new Deadline(one.signal, one.timeoutSeconds * 1000);
  const what = `search ${one.type} at ${one.source}`;
  const search = new AbortController();
  let onEnd: EndListener = { handleEvent: () => {} };
  const ended = new Promise<never>((_, reject) => {
    onEnd = {
      handleEvent: () => {
        if (search.signal.aborted) return;
        const timedOut = one.signal?.aborted !== true;
        search.abort(timedOut ? new DOMException('source time-out', 'TimeoutError') : one.signal!.reason);
        reject(timedOut ? new FhirgateError('ERR_TIMEOUT', `${what} timed out`) : aborted(what, one.signal!));
      },
    };
  });
  const timer = deadline.over() ? (onEnd.handleEvent(), undefined) : deadline.arm(onEnd);
  try {
    const answer = await Promise.race([Promise.resolve().then(() => gw.search(one.type, one.params, one.source, { signal: search.signal })), ended]);
    if (typeof answer !== 'object' || answer === null || answer.resourceType !== 'Bundle') {
      throw new FhirgateError('ERR_FHIR_RESPONSE', 'the search answer is not a Bundle');
    }
    return answer;
  } catch (err) {
    // Whatever the gateway made of it, the time-out firing means the source was too slow.
    if (search.signal.aborted && one.signal?.aborted !== true) throw new FhirgateError('ERR_TIMEOUT', `${what} timed out`, { cause: err });
    throw err;
  } finally {
    deadline.disarm(timer, onEnd);
  }
}

/** The caller's abort: `ERR_ABORTED` whatever its reason (a time-out of the caller's own included). */
function aborted(what: string, signal: AbortSignal): FhirgateError {
  return new FhirgateError('ERR_ABORTED', `${what} was aborted`, { cause: signal.reason });
}
