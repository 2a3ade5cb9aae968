/**
 * The retry loop around one request's tries: the decision table, `Retry-After`, backoff, and the
 * call's deadline and abort signal bounding every wait.
 * @module
 */
import { isFhirgateError } from '../errors.js';
import type { Deadline } from './deadline.js';
import { publish, requestRetryChannel } from './diagnostics.js';
import { tryFailureOf } from './exchange.js';
import type { TryListener } from './exchange.js';
import type { CheckedRequestOptions, HTTPResponse, HTTPTarget } from './request-options.js';
import { parseRetryAfter } from './retry-after.js';
import { backoffDelay, retryAction } from './retry-policy.js';
import type { RetryPolicy } from './retry-policy.js';
import { pause } from './signals.js';

/**
 * What the retry loop drives: an object rather than callbacks, so that a pool can keep all of one
 * request's state (its queue entry and wait included) in one object, with no closure per request.
 */
export interface TrySender {
  /**
   * Starts one try and reports its end to `listener`. `freshSocket` is true when the previous try
   * failed on a stale keep-alive socket: this try must not reuse an idle one.
   */
  sendTry(freshSocket: boolean, listener: TryListener): void;
  /** Called once the request has settled, whatever the outcome (before the promise settles). */
  settled?(): void;
}

/**
 * Runs tries until one gives an answer that is not retried, or the retries are used up, and resolves
 * with the last answer (or rejects with the last error): the caller sees the real status of the last
 * try. A wait that would end after the deadline is not started; an abort during a wait rejects at
 * once. One promise for the whole request: the tries report through callbacks, and a first answer
 * that is not retried settles it at once. `sender.settled` is called once the request has settled.
 */
export function sendWithRetries(target: HTTPTarget, options: CheckedRequestOptions, deadline: Deadline, sender: TrySender): Promise<HTTPResponse> {
  return new Promise<HTTPResponse>((resolve, reject) => new Tries(target, options, deadline, sender, resolve, reject).send(false));
}

/** The state of one request's tries. */
class Tries implements TryListener {
  readonly #target: HTTPTarget;
  readonly #options: CheckedRequestOptions;
  readonly #deadline: Deadline;
  readonly #sender: TrySender;
  readonly #resolve: (res: HTTPResponse) => void;
  readonly #reject: (err: unknown) => void;
  /** The number of the try in flight, 1 for the first. */
  #attempt = 1;
  #retries = 0;
  #staleReplaced = false;

  constructor(
    target: HTTPTarget,
    options: CheckedRequestOptions,
    deadline: Deadline,
    sender: TrySender,
    resolve: (res: HTTPResponse) => void,
    reject: (err: unknown) => void,
  ) {
    this.#target = target;
    this.#options = options;
    this.#deadline = deadline;
    this.#sender = sender;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  /** The tries sent before the one in flight. */
  get resends(): number {
    return this.#attempt - 1;
  }

  /** Starts a try; a try that throws at once ends as that error. */
  send(fresh: boolean): void {
    try {
      this.#sender.sendTry(fresh, this);
    } catch (err) {
      this.tryDone(err, undefined);
    }
  }

  tryDone(error: unknown, res: HTTPResponse | undefined): void {
    const options = this.#options;
    const policy = options.retry;
    if (res !== undefined && !policy.retryOn.has(res.status)) return this.#finish(undefined, res);
    const action = retryAction(options, res === undefined ? tryFailureOf(error) : { status: res.status }, policy, this.#staleReplaced);
    if (action === 'none' || (action === 'backoff' && this.#retries >= policy.maxRetries)) return this.#finish(error, res);
    const fresh = action === 'fresh-socket';
    this.#staleReplaced ||= fresh;
    const delayMs = fresh ? 0 : waitBefore(res, ++this.#retries, policy);
    if (delayMs >= this.#deadline.remaining()) return this.#finish(error, res);
    const target = this.#target;
    const attempt = ++this.#attempt;
    publish(requestRetryChannel, () => ({
      method: options.method,
      origin: target.origin,
      path: target.pathname,
      attempt,
      delayMs,
      ...(res === undefined ? { error: isFhirgateError(error) ? error.code : 'ERR_NETWORK' } : { status: res.status }),
    }));
    if (delayMs === 0) return this.send(fresh);
    pause(delayMs, this.#deadline.signal, `${options.method} ${target.origin}${target.pathname} (waiting to retry)`).then(
      () => this.send(fresh),
      (err: unknown) => this.#finish(err, undefined),
    );
  }

  /** Settles with the answer when there is one, else with the error. */
  #finish(error: unknown, res: HTTPResponse | undefined): void {
    this.#sender.settled?.();
    if (res !== undefined) this.#resolve(res);
    else this.#reject(error);
  }
}

/** The wait before retry number `retry`: the answer's `Retry-After` (capped), else the backoff. */
function waitBefore(res: HTTPResponse | undefined, retry: number, policy: RetryPolicy): number {
  const asked = res === undefined ? undefined : parseRetryAfter(res.headers['retry-after'], Date.now());
  return asked === undefined ? backoffDelay(retry, policy) : Math.min(asked, policy.maxRetryDelayMs);
}
