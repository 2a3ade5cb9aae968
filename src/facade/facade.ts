/**
 * `FHIRFacade`: every source of an `AsyncFHIRGateway` as a FHIR base at `{prefix}/{source}`, one
 * federated base over them, callers held to a policy (denied by default), signed page tokens,
 * AuditEvents, rate limits. A mountable component: `app.registerService(facade, { path: '/fhir' })`
 * beside the gateway.
 * @module
 */
import type { EventDispatcher } from '../events/types.js';
import { issueTypeOfStatus } from '../fhir/operation-outcome.js';
import type { AsyncFHIRGateway } from '../gateway/index.js';
import { ProxyAgents } from '../http/proxy-agents.js';
import { MOUNT } from '../mount/index.js';
import type { Mountable, PublicError, RefusedRequest, Route, RouteReply, RouteRequest } from '../mount/index.js';
import { attemptedInteraction, auditRefused } from './audit-refusal.js';
import { AuditSink } from './audit-sink.js';
import { AuditTrail } from './audit-trail.js';
import { servedSources } from './facade-context.js';
import type { FacadeContext } from './facade-context.js';
import { facadeOpenAPI } from './facade-openapi.js';
import { answerFederated } from './federated-base.js';
import { outcome } from './fhir-answer.js';
import { CallerDirectory } from './identify-caller.js';
import { checkFacadeOptions, checkIdentityCallers, RESERVED_NAMES } from './options.js';
import type { FHIRFacadeOptions } from './options.js';
import { PageTokens } from './page-token.js';
import { answerSource } from './source-base.js';
import { UpstreamLimits } from './upstream-limits.js';
import { BaseRewriter } from './url-rewrite.js';

/** Rewriters kept per upstream and facade base (a replaced source gets a new one); at most 256, then started afresh. */
function rewriters(gateway: AsyncFHIRGateway): FacadeContext['rewriter'] {
  const kept = new Map<string, BaseRewriter>();
  return (source, facadeBase) => {
    const upstream = gateway.sourceBaseUrl(source);
    const key = `${upstream} ${facadeBase}`;
    let rewriter = kept.get(key);
    if (rewriter === undefined) {
      if (kept.size >= 256) kept.clear();
      kept.set(key, (rewriter = new BaseRewriter(upstream, facadeBase)));
    }
    return rewriter;
  };
}

const PATHS = ['/:source', '/:source/:a', '/:source/:a/:b', '/:source/:a/:b/:c', '/:source/:a/:b/:c/:d'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * The FHIR facade over a gateway's sources.
 *
 * @example
 * ```ts
 * const gw = new AsyncFHIRGateway();
 * gw.addSource('ehr', 'fhir://ehr.example.org/r4/?client_id=app&client_secret=s3cret');
 * const facade = new FHIRFacade(gw, { callers: [{ name: 'billing', apiKey: process.env.BILLING_KEY!, sources: ['ehr'], scopes: 'system/Patient.rs' }] });
 * const app = createServiceAPI();
 * app.registerGateway(gw, { path: '/fhir' });
 * app.registerService(facade, { path: '/fhir' });
 * ```
 */
export class FHIRFacade {
  readonly #ctx: FacadeContext;
  readonly #sink: AuditSink | undefined;
  readonly #proxy: ProxyAgents;

  constructor(gateway: AsyncFHIRGateway, options: FHIRFacadeOptions = {}) {
    if (typeof gateway?.exchange !== 'function') throw new TypeError('FHIRFacade needs an AsyncFHIRGateway');
    const checked = checkFacadeOptions(options);
    checkIdentityCallers(checked.callers, gateway.identitySystems);
    const audit = checked.audit;
    this.#sink = audit === undefined ? undefined : new AuditSink(audit, (bundle) => gateway.batch(bundle, audit.source));
    this.#proxy = new ProxyAgents(checked.proxy, 'options.proxy');
    this.#ctx = {
      gateway,
      callers: new CallerDirectory(checked.callers, checked.openReadOnly, this.#proxy, gateway.identitySystems !== undefined),
      tokens: new PageTokens(checked.pageTokenSecret, checked.pageTokenTtlSeconds),
      limits: new UpstreamLimits(checked.limits, checked.limitStore),
      audit: new AuditTrail(this.#sink),
      options: checked,
      rewriter: rewriters(gateway),
    };
  }

  /**
   * True when the facade serves nothing: no caller is configured and it is not open for reads.
   *
   * @example
   * ```ts
   * new FHIRFacade(gw).closed; // true
   * ```
   */
  get closed(): boolean {
    return this.#ctx.callers.closed;
  }

  /** The facade's face for `createServiceAPI().registerService()`. */
  [MOUNT](): Mountable {
    const ctx = this.#ctx;
    const handle = (req: RouteRequest): RouteReply | Promise<RouteReply> => this.#answer(req);
    return {
      kind: 'service',
      defaultPath: '/fhir',
      routes: (): Route[] => (this.closed ? [] : PATHS.flatMap((path) => METHODS.map((method) => ({ method, path, handle, public: true })))),
      status: () => ({
        status: this.closed ? 'closed' : 'active',
        sources: ctx.gateway.sourceNames,
        federated: ctx.options.federatedName,
        open_read_only: ctx.options.openReadOnly,
        in_flight: ctx.limits.inFlight(),
        ...(this.#sink === undefined ? {} : { audit: this.#sink.status() }),
      }),
      openapi: () => (this.closed ? {} : facadeOpenAPI(servedSources(ctx), ctx.options.federatedName)),
      useEvents: (dispatcher: EventDispatcher | null) => ctx.audit.use(dispatcher),
      errorReply: (error: PublicError, request?: RefusedRequest) => {
        // What no route took (a path too deep, a malformed escape, OPTIONS, a body too large) is an access too.
        if (request !== undefined && !this.closed) {
          const source = request.path.split('/')[1] ?? '';
          auditRefused(ctx, request, source, `${request.baseUrl}/${source}`, attemptedInteraction(request.method), error.status, `${error.code}: ${error.message}`);
        }
        return outcome(error.status, issueTypeOfStatus(error.status), error.message);
      },
      close: async () => {
        await this.#sink?.close();
        this.#proxy.close();
      },
    };
  }

  // Not async: the answer's own promise is handed on, without a second one around it.
  #answer(req: RouteRequest): RouteReply | Promise<RouteReply> {
    const { source, a, b, c, d } = req.params;
    // The route's parameters fill in order: no array to filter per request.
    const rest: readonly string[] = a === undefined ? NO_SEGMENTS : b === undefined ? [a] : c === undefined ? [a, b] : d === undefined ? [a, b, c] : [a, b, c, d];
    if (source === this.#ctx.options.federatedName) return answerFederated(this.#ctx, req, rest);
    if (source === undefined || RESERVED_NAMES.includes(source) || !isSource(this.#ctx.gateway, source)) {
      const reason = `no FHIR base "${String(source).slice(0, 64)}" here`;
      auditRefused(this.#ctx, req, String(source), `${req.baseUrl}/${String(source)}`, attemptedInteraction(req.method), 404, reason);
      return outcome(404, 'not-found', reason);
    }
    return answerSource(this.#ctx, req, source, rest);
  }
}

const NO_SEGMENTS: readonly string[] = Object.freeze([]);

/** True when `name` is a source of `gateway` (`sourceNames` would copy the list per request). */
function isSource(gateway: AsyncFHIRGateway, name: string): boolean {
  try {
    gateway.sourceBaseUrl(name);
    return true;
  } catch {
    return false;
  }
}
