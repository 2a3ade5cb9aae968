/**
 * The connection pool every source of a gateway shares: one keep-alive agent per origin, and one cap
 * on the sockets of all origins together.
 * @module
 */
import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Socket } from 'node:net';
import { FhirgateError } from '../errors.js';
import type { TimerHandle } from './coarse-timers.js';
import { Deadline } from './deadline.js';
import { poolWaitChannel } from './diagnostics.js';
import type { EndListener } from './deadline.js';
import { startExchange } from './exchange.js';
import type { TraceContext } from '../lib/trace-context.js';
import { currentTrace, runInTrace } from '../lib/trace-scope.js';
import { endSpanWithError, SPAN_KIND, startSpan, type SpanLike } from '../lib/tracer.js';
import type { TryListener } from './exchange.js';
import { dropIdleSockets, expireIdleSockets } from './idle-sockets.js';
import { originAgent } from './origin-agent.js';
import { checkProxyOptions, proxyFor } from './proxy-options.js';
import type { CheckedProxy } from './proxy-options.js';
import { checkRequestOptions, toHTTPUrl } from './request-options.js';
import type { CheckedRequestOptions, HTTPRequestOptions, HTTPResponse, HTTPTarget } from './request-options.js';
import { POOL_DEFAULTS } from './pool-types.js';
import type { AgentPoolOptions, AgentPoolStatus, OriginPoolStatus, PoolLimits } from './pool-types.js';
import { sendWithRetries } from './send-with-retries.js';
import type { TrySender } from './send-with-retries.js';
import { evictIdle } from './evict-idle.js';
import { countSockets, idleSockets, sockets } from './socket-counts.js';
import { checkObject, numberOption, onlyKnownKeys } from '../lib/options.js';
import type { CheckedTLS } from './tls-options.js';

interface Origin {
  readonly origin: string;
  /** The TLS settings of the sources this origin's agent serves (`undefined`: Node's defaults). */
  readonly tls: CheckedTLS | undefined;
  readonly agent: http.Agent;
  /** Tunnels through the proxy being opened: sockets the agent does not list yet, counted against the cap. */
  connecting: number;
  /** The key of this origin's socket lists in the agent (`agent.getName()`), known once a socket was made. */
  name: string | undefined;
  inFlight: number;
  /**
   * This origin's FIFO queue from `head` on; cancelled waiters stay in it until a pump passes them. The
   * slots before `head` are emptied as it passes them: a started request held there until the next
   * compaction kept its options, URL and deadline alive after its answer (soak at 1,000 connections:
   * ~770 finished requests, 0.8 MB of the heap after a full GC).
   */
  readonly waiters: Array<PooledRequest | undefined>;
  head: number;
  /** Live (not cancelled) waiters in `waiters`. */
  queued: number;
  retired: boolean;
}

/** What a {@link PooledRequest} asks of its pool (one object per pool, so that a request needs no closure of its own). */
interface PoolSide {
  /** Starts the request's try now, or queues it. */
  send(request: PooledRequest, listener: TryListener): void;
  /** A queued request's wait ended early: it no longer counts as waiting. */
  unqueue(origin: Origin): void;
  settled(origin: Origin): void;
}

/**
 * All the pool's state of one request in one object: the retry loop's sender, the queue's waiter and
 * the listener of its wait's deadline. Request objects, closures and contexts per queued request were
 * what the soak's heap snapshots showed most of at 1,000 connections, where every request waits.
 */
class PooledRequest implements TrySender, EndListener {
  /** The order of arrival over all origins: a socket that any origin may open goes to the oldest waiter. */
  seq = 0;
  /** Set when the wait ended early (abort or time-out), which ends the request; a pump drops it from its origin's queue. */
  cancelled = false;
  #listener: TryListener | undefined;
  #timer: TimerHandle | undefined;
  /** When the wait began, for the `fhirgate:pool:wait` channel (only read when it has subscribers). */
  #waitedFrom = 0;
  /** The trace of the work that queued the request: a pump runs in whatever trace freed the socket. */
  #trace: TraceContext | undefined;
  /** The span `fhirgate.pool.wait` of the wait in progress, when the request's trace has a tracer. */
  #waitSpan: SpanLike | undefined;

  constructor(
    readonly side: PoolSide,
    readonly origin: Origin,
    readonly target: HTTPTarget,
    readonly options: CheckedRequestOptions,
    readonly deadline: Deadline,
  ) {}

  sendTry(freshSocket: boolean, listener: TryListener): void {
    if (freshSocket) dropIdleSockets(this.origin.agent, this.target);
    this.side.send(this, listener);
  }

  settled(): void {
    this.side.settled(this.origin);
  }

  /** Starts the try at once. */
  exchange(listener: TryListener): void {
    startExchange(this.target, this.options, this.deadline, listener, this.origin.agent);
  }

  /** Waits in the queue as number `seq`, until {@link start}, or until the deadline ends the wait. */
  wait(seq: number, listener: TryListener): void {
    this.seq = seq;
    this.#listener = listener;
    this.#timer = this.deadline.arm(this);
    const trace = (this.#trace = currentTrace());
    if (trace?.tracer !== undefined) this.#waitSpan = startSpan(trace.tracer, 'fhirgate.pool.wait', SPAN_KIND.internal, trace, { 'server.address': this.target.hostname }).span;
    if (poolWaitChannel.hasSubscribers) this.#waitedFrom = performance.now();
  }

  /** Publishes the end of a wait (`started` false: the wait ended without a socket). */
  #waited(started: boolean): void {
    if (poolWaitChannel.hasSubscribers && this.#waitedFrom !== 0) {
      poolWaitChannel.publish({ origin: this.target.origin, source: this.options.label?.source, waitMs: performance.now() - this.#waitedFrom, started });
    }
    this.#waitedFrom = 0;
  }

  /** Leaves the queue and starts the try. */
  start(): void {
    const listener = this.#listener!;
    this.#listener = undefined;
    this.deadline.disarm(this.#timer, this);
    this.#waited(true);
    this.#waitSpan?.end();
    this.#waitSpan = undefined;
    try {
      if (this.#trace === undefined) this.exchange(listener);
      else runInTrace(this.#trace, exchangeOf, this, listener);
    } catch (err) {
      listener.tryDone(err, undefined);
    }
  }

  /** The caller aborted, or the time is up, while waiting. */
  handleEvent(): void {
    if (this.cancelled || this.#listener === undefined) return;
    const listener = this.#listener;
    this.#listener = undefined;
    this.cancelled = true;
    this.side.unqueue(this.origin);
    this.deadline.disarm(this.#timer, this);
    this.#waited(false);
    const error = this.deadline.error(`waiting for a connection to ${this.target.origin}`);
    if (this.#waitSpan !== undefined) endSpanWithError(this.#waitSpan, error.code);
    this.#waitSpan = undefined;
    listener.tryDone(error, undefined);
  }
}

/** Starts `request`'s try (a function, not a closure per request, for {@link runInTrace}). */
function exchangeOf(request: PooledRequest, listener: TryListener): void {
  request.exchange(listener);
}

/**
 * A keep-alive pool shared by many origins. `maxConnections` caps the sockets of all origins
 * together (requests beyond it wait in a FIFO queue per origin: a socket freed by an origin goes to that
 * origin's next waiter, a new socket to the oldest waiter of any origin; when a socket is needed for a
 * waiting request and another origin holds an idle one beyond its fair share, that idle socket is closed
 * to make room);
 * `maxKeepaliveConnections` idle sockets are kept per origin for `keepaliveExpiry` seconds. Counts are
 * read from the agents' own socket lists, so a failed or aborted request cannot leak a slot.
 */
export class AgentPool {
  readonly #limits: PoolLimits;
  readonly #proxy: CheckedProxy | undefined;
  /** The origins of requests without TLS settings of their own (the common case: one lookup by origin). */
  readonly #origins = new Map<string, Origin>();
  /** The origins of each source's TLS settings: two sources with different client certificates never share a socket. */
  readonly #tlsOrigins = new Map<CheckedTLS, Map<string, Origin>>();
  readonly #retired = new Set<Origin>();
  /** Origins with live waiters: what a pump looks at, instead of every waiter or every socket. */
  readonly #waitingOrigins = new Set<Origin>();
  /** Live waiters of all origins. */
  #waiting = 0;
  /** The next waiter's place in the order of arrival. */
  #seq = 0;
  #pumping = false;
  #pumpAgain = false;
  /** A pump is due in this loop iteration's check phase (see {@link #pumpSoon}). */
  #pumpDue = false;
  /** Requests sent and not settled yet (queued ones included). */
  #pending = 0;
  /** Resolves the wait of `close()` when the last pending request settles. */
  #drained: (() => void) | undefined;
  #closing: Promise<void> | undefined;
  readonly #side: PoolSide = {
    send: (request, listener) => this.#send(request, listener),
    unqueue: (origin) => this.#unqueue(origin),
    settled: (origin) => this.#settled(origin),
  };

  constructor(options: AgentPoolOptions = {}) {
    checkObject(options, 'options');
    onlyKnownKeys(options, ['maxConnections', 'maxKeepaliveConnections', 'keepaliveExpiry', 'proxy'], 'options');
    this.#proxy = checkProxyOptions(options.proxy, 'options.proxy');
    this.#limits = Object.freeze({
      maxConnections: numberOption(options.maxConnections, 'options.maxConnections', POOL_DEFAULTS.maxConnections, { integer: true, min: 1 }),
      maxKeepaliveConnections: numberOption(options.maxKeepaliveConnections, 'options.maxKeepaliveConnections', POOL_DEFAULTS.maxKeepaliveConnections, { integer: true, min: 0 }),
      keepaliveExpiry: numberOption(options.keepaliveExpiry, 'options.keepaliveExpiry', POOL_DEFAULTS.keepaliveExpiry, { above: 0, unit: 'seconds' }),
    });
  }

  /**
   * Checks `options` (`checkRequestOptions()`: `TypeError`/`RangeError` naming the option), then sends the
   * request through the pool; same contract as `request()` (the agent is the pool's), retries
   * included. The time-out covers the waits for a socket and between retries too. A request that
   * fails on a stale idle socket is sent once more after the origin's idle sockets are closed. `tls`:
   * the TLS settings of the source the request is for (its token endpoint, its SMART configuration).
   */
  request(url: string | URL, options: Omit<HTTPRequestOptions, 'agent'> = {}, tls?: CheckedTLS): Promise<HTTPResponse> {
    if (this.#closing !== undefined) return Promise.reject(closedError());
    const checked = checkRequestOptions(options);
    return this.sendChecked(toHTTPUrl(url), tls === undefined ? checked : { ...checked, tls });
  }

  /**
   * {@link AgentPool.request} for a caller that has checked its options once with
   * `checkRequestOptions()` (or built them to that contract) and holds an `http:`/`https:` URL: nothing
   * is validated or copied again. `options.agent` is ignored (the pool's is used); `options.tls` picks
   * the agents of those TLS settings.
   */
  sendChecked(target: HTTPTarget, options: CheckedRequestOptions): Promise<HTTPResponse> {
    if (this.#closing !== undefined) return Promise.reject(closedError());
    const origin = this.#origin(target, options.tls);
    const deadline = new Deadline(options.signal, options.timeoutMs);
    origin.inFlight++;
    this.#pending++;
    return sendWithRetries(target, options, deadline, new PooledRequest(this.#side, origin, target, options, deadline));
  }

  /**
   * Closes the connections of one origin (those without TLS settings of their own): idle sockets now,
   * busy ones when their requests finish. Later requests to that origin open new connections.
   */
  retire(origin: string): void {
    const entry = this.#origins.get(origin);
    if (entry === undefined) return;
    this.#origins.delete(origin);
    this.#retireEntry(entry);
  }

  /** {@link retire} for every origin reached with the TLS settings `tls` (a replaced source's). */
  retireTLS(tls: CheckedTLS): void {
    const origins = this.#tlsOrigins.get(tls);
    if (origins === undefined) return;
    this.#tlsOrigins.delete(tls);
    for (const entry of origins.values()) this.#retireEntry(entry);
  }

  #retireEntry(entry: Origin): void {
    entry.retired = true;
    this.#retired.add(entry);
    if (entry.inFlight === 0) this.#destroy(entry);
  }

  /** A JSON-safe picture: the limits, the totals and the counts per origin (the agents of every TLS setting of one origin together). */
  status(): AgentPoolStatus {
    const byOrigin = new Map<string, OriginPoolStatus>();
    for (const o of this.#liveOrigins()) {
      const counts = byOrigin.get(o.origin) ?? { origin: o.origin, active: 0, idle: 0, queued: 0 };
      counts.active += sockets(o.agent.sockets).length + o.connecting;
      counts.idle += sockets(o.agent.freeSockets).length;
      counts.queued += o.queued;
      byOrigin.set(o.origin, counts);
    }
    const origins = [...byOrigin.values()];
    const sum = (key: 'active' | 'idle' | 'queued'): number => origins.reduce((n, o) => n + o[key], 0);
    return {
      limits: this.#limits,
      totals: { active: sum('active'), idle: sum('idle'), queued: this.#waiting },
      origins,
    };
  }

  /**
   * Lets every request in flight (queued ones included) finish, then closes every socket. Idempotent;
   * requests after it reject with `ERR_CLOSED`.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#pending > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
      for (const origin of this.#allOrigins()) this.#destroy(origin);
      this.#origins.clear();
      this.#tlsOrigins.clear();
    })();
    return this.#closing;
  }

  #origin(target: HTTPTarget, tls: CheckedTLS | undefined): Origin {
    let origins = this.#origins;
    if (tls !== undefined) {
      origins = this.#tlsOrigins.get(tls) ?? new Map<string, Origin>();
      this.#tlsOrigins.set(tls, origins);
    }
    const known = origins.get(target.origin);
    if (known !== undefined) return known;
    const limits = {
      // Node reads maxFreeSockets 0 as "the default"; no idle socket at all means no keep-alive.
      keepAlive: this.#limits.maxKeepaliveConnections > 0,
      maxSockets: this.#limits.maxConnections,
      maxFreeSockets: this.#limits.maxKeepaliveConnections,
    };
    const { agent, tunnels } = originAgent(target.protocol, limits, proxyFor(this.#proxy, target), tls);
    expireIdleSockets(agent, this.#limits.keepaliveExpiry * 1000);
    const origin: Origin = { origin: target.origin, tls, agent, connecting: 0, name: undefined, inFlight: 0, waiters: [], head: 0, queued: 0, retired: false };
    const create = agent.createConnection.bind(agent) as (o: object, c: unknown) => Socket | undefined;
    // The agent forgets a socket in its own 'close' listener, added after this one.
    const watch = (socket: Socket): void => void socket.once('close', () => process.nextTick(this.#pump));
    agent.createConnection = ((opts: http.ClientRequestArgs, callback: (err: Error | null, socket?: Socket) => void) => {
      origin.name ??= agent.getName(opts);
      if (!tunnels) {
        const socket = create(opts, callback);
        if (socket !== undefined) watch(socket);
        return socket;
      }
      // A tunnel answers later: until then it counts against the cap as a socket being opened.
      origin.connecting++;
      create(opts, (err: Error | null, socket?: Socket) => {
        origin.connecting--;
        if (socket !== undefined) watch(socket);
        else process.nextTick(this.#pump);
        callback(err, socket);
      });
      return undefined;
    }) as typeof agent.createConnection;
    agent.on('free', this.#pumpSoon);
    origins.set(target.origin, origin);
    return origin;
  }

  /** The origins that take new requests, with and without TLS settings of their own. */
  #liveOrigins(): Origin[] {
    const all = [...this.#origins.values()];
    for (const origins of this.#tlsOrigins.values()) all.push(...origins.values());
    return all;
  }

  /** A request sent through `origin` has settled. */
  #settled(origin: Origin): void {
    origin.inFlight--;
    if (origin.retired && origin.inFlight === 0) this.#destroy(origin);
    if (--this.#pending === 0) this.#drained?.();
  }

  /**
   * One try: at once when no request of this origin waits and either one of its idle sockets is free or
   * nobody waits at all and a socket may be opened; else after a wait in the origin's queue.
   */
  #send(request: PooledRequest, listener: TryListener): void {
    const origin = request.origin;
    if (!this.#pumping && origin.queued === 0 && this.#canStart(origin)) return request.exchange(listener);
    const deadline = request.deadline;
    if (deadline.over()) return listener.tryDone(deadline.error(`waiting for a connection to ${request.target.origin}`), undefined);
    request.wait(this.#seq++, listener);
    origin.waiters.push(request);
    if (origin.queued++ === 0) this.#waitingOrigins.add(origin);
    this.#waiting++;
    this.#pump();
  }

  #canStart(origin: Origin): boolean {
    return idleSockets(origin.agent, origin.name, 1) > 0 || (this.#waiting === 0 && this.#totalSockets() < this.#limits.maxConnections);
  }

  #allOrigins(): Origin[] {
    return [...this.#liveOrigins(), ...this.#retired];
  }

  #totalSockets(): number {
    let total = 0;
    for (const o of this.#origins.values()) total += countSockets(o.agent.sockets) + countSockets(o.agent.freeSockets) + o.connecting;
    if (this.#tlsOrigins.size > 0) for (const origins of this.#tlsOrigins.values()) for (const o of origins.values()) total += countSockets(o.agent.sockets) + countSockets(o.agent.freeSockets) + o.connecting;
    for (const o of this.#retired) total += countSockets(o.agent.sockets) + countSockets(o.agent.freeSockets) + o.connecting;
    return total;
  }

  /**
   * A waiter of `origin` left its queue (started or cancelled). With none live, what is left are cancelled
   * waiters: the queue is emptied at once (no pass reads a queue whose origin has none waiting).
   */
  #unqueue(origin: Origin): void {
    this.#waiting--;
    if (--origin.queued > 0) return;
    this.#waitingOrigins.delete(origin);
    origin.waiters.length = 0;
    origin.head = 0;
  }

  /** Takes the first live waiter off `origin`'s queue (the caller knows there is one). */
  #next(origin: Origin): PooledRequest {
    const queue = origin.waiters;
    let waiter: PooledRequest;
    do {
      waiter = queue[origin.head]!;
      queue[origin.head++] = undefined;
    } while (waiter.cancelled);
    if (origin.head * 2 > queue.length) {
      queue.splice(0, origin.head);
      origin.head = 0;
    }
    this.#unqueue(origin);
    return waiter;
  }

  /** The oldest live waiter's origin, dropping the cancelled waiters at the heads of the queues on the way. */
  #oldest(): Origin | undefined {
    let oldest: Origin | undefined;
    let seq = Infinity;
    for (const o of this.#waitingOrigins) {
      while (o.waiters[o.head]!.cancelled) o.waiters[o.head++] = undefined;
      const head = o.waiters[o.head]!.seq;
      if (head < seq) {
        seq = head;
        oldest = o;
      }
    }
    return oldest;
  }

  /**
   * A socket came free: its next waiter starts in this loop iteration's check phase, together with
   * those of every other socket freed in the same iteration, not at once. Started at once, each next
   * request went out one request's work after the previous one (the answer's handler runs between
   * them), and the upstream woke once per request: at 256 connections (`e2e-transform`, strace of the
   * upstream) 1.04 wake-ups per request against 0.16-0.20 for undici's Pool, which reuses a socket
   * after `setImmediate` too, and more CPU per request on both sides of the connection.
   */
  readonly #pumpSoon = (): void => {
    if (this.#waiting === 0 || this.#pumpDue) return;
    this.#pumpDue = true;
    setImmediate(this.#duePump);
  };

  readonly #duePump = (): void => {
    this.#pumpDue = false;
    this.#pump();
  };

  /** Starts the waiters that can start. Re-entrant calls (a try that fails at once and is retried) only ask for one more pass. */
  readonly #pump = (): void => {
    if (this.#waiting === 0) return;
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = true;
    try {
      do {
        this.#pumpAgain = false;
        this.#startWaiters();
      } while (this.#pumpAgain && this.#waiting > 0);
    } finally {
      this.#pumping = false;
    }
  };

  /**
   * One pass: every waiting origin with an idle socket hands it to its next waiter (Node's agent gives
   * a free socket to a new request synchronously, so the idle count goes down by one); then, while the
   * total is under the cap, the oldest waiter of any origin opens a socket. The work is per waiting
   * origin and per started request, never per queued request or per socket: with 1,000 requests
   * waiting on one origin, a freed socket starts one of them and touches nothing else.
   */
  #startWaiters(): void {
    for (const origin of this.#waitingOrigins) {
      for (let free = idleSockets(origin.agent, origin.name); free > 0 && origin.queued > 0; free--) this.#next(origin).start();
    }
    if (this.#waiting === 0) return;
    const max = this.#limits.maxConnections;
    let total = this.#totalSockets();
    for (; total < max && this.#waiting > 0; total++) this.#next(this.#oldest()!).start();
    if (this.#waiting > 0) evictIdle(this.#allOrigins(), this.#waiting, max);
  }

  #destroy(origin: Origin): void {
    this.#retired.delete(origin);
    origin.agent.destroy();
  }
}

function closedError(): FhirgateError {
  return new FhirgateError('ERR_CLOSED', 'the connection pool is closed');
}
