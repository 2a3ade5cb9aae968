/**
 * `CDSHooksService`: CDS Hooks 2.0 discovery, service calls with prefetch, card validation, feedback and
 * client JWT verification, mounted by the application host.
 * @module
 */
import { ProxyAgents } from '../http/proxy-agents.js';
import { FhirgateError } from '../errors.js';
import { localHandler } from '../events/index.js';
import { emitSafely } from '../events/emit-safely.js';
import type { EventDispatcher } from '../events/types.js';
import { json, MOUNT, type Mountable, type MountableComponent, type Route } from '../mount/index.js';
import { handleFeedback, handleServiceCall, type CallEnvironment } from './call-routes.js';
import { CDSError } from './cds-error.js';
import { ClientAuth } from './client-auth.js';
import { CDS_DEFAULTS } from './defaults.js';
import { FHIRServerAllowlist } from './fhir-server-allowlist.js';
import { numberOption, onlyKnownKeys } from '../lib/options.js';
import { buildOpenAPI } from './openapi.js';
import { prepareEntry, type CDSDiscoveryEntry, type ServiceEntry } from './registry-entry.js';
import { CDS_OPTION_KEYS, type CDSHandler, type CDSHooksServiceOptions, type CDSServiceDefinition } from './types.js';

function checkDispatcher(value: unknown): EventDispatcher | undefined {
  if (value !== undefined && typeof (value as Partial<EventDispatcher> | null)?.emit !== 'function') {
    throw new TypeError('dispatcher must be an EventDispatcher');
  }
  return value as EventDispatcher | undefined;
}

/**
 * A CDS Hooks 2.0 service host: register services per hook, then mount it with
 * `app.registerService(cds, { path: '/cds' })`.
 *
 * @example
 * ```ts
 * const cds = new CDSHooksService();
 * cds.hook('patient-view', {
 *   id: 'patient-greeting', title: 'Greeting', description: 'Greets the patient',
 *   prefetch: { patient: 'Patient/{{context.patientId}}' },
 * }, async (req) => ({
 *   cards: [{ summary: `Hello ${req.prefetch.patient?.id}`, indicator: 'info', source: { label: 'fhirgate' } }],
 * }));
 * app.registerService(cds);
 * ```
 */
export class CDSHooksService implements MountableComponent {
  readonly #services = new Map<string, ServiceEntry>();
  readonly #auth: ClientAuth | null;
  readonly #environment: CallEnvironment;
  #dispatcher: EventDispatcher | null;
  readonly #proxy: ProxyAgents;
  #closed = false;

  constructor(options: CDSHooksServiceOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
    onlyKnownKeys(options, CDS_OPTION_KEYS.service, 'options');
    this.#dispatcher = checkDispatcher(options.dispatcher) ?? localHandler;
    this.#proxy = new ProxyAgents(options.proxy, 'options.proxy');
    this.#auth = options.auth === undefined ? null : new ClientAuth(options.auth, this.#proxy);
    if (options.allowInsecureFhirServer !== undefined && typeof options.allowInsecureFhirServer !== 'boolean') {
      throw new TypeError('allowInsecureFhirServer must be a boolean');
    }
    this.#environment = {
      bodyLimit: numberOption(options.bodyLimit, 'options.bodyLimit', CDS_DEFAULTS.bodyLimit, { min: 1 }),
      prefetch: {
        timeoutMs: numberOption(options.prefetchTimeoutMs, 'options.prefetchTimeoutMs', CDS_DEFAULTS.prefetchTimeoutMs, { min: 1 }),
        maxBytes: numberOption(options.prefetchMaxBytes, 'options.prefetchMaxBytes', CDS_DEFAULTS.prefetchMaxBytes, { min: 1 }),
        allowInsecure: options.allowInsecureFhirServer ?? false,
        allowed: FHIRServerAllowlist.from(options.fhirServers, 'fhirServers'),
        proxy: this.#proxy,
      },
      lookup: (id) => {
        if (this.#closed) throw new CDSError('ERR_CLOSED', 'the CDS service is closed', 503);
        return this.#services.get(id);
      },
      authFor: (entry) => (entry.auth === undefined ? this.#auth : entry.auth),
      emit: (name, payload) => emitSafely(this.#dispatcher, name, payload),
    };
  }

  /**
   * Registers a service for `hookType` (any hook name; the context of known hooks is checked). With a
   * handler, returns `this`; without, returns a wrapper that registers the handler it is given and
   * returns it. Misuse throws a `TypeError`; a taken id throws `FhirgateError('ERR_DUPLICATE_NAME')`.
   *
   * @example
   * ```ts
   * cds.hook('order-sign', { id: 'dup-check', description: 'Duplicate orders' }, async () => ({ cards: [] }));
   * const greet = cds.hook('patient-view', { id: 'greet', description: 'Greets' })(async () => ({ cards: [] }));
   * ```
   */
  hook(hookType: string, definition: CDSServiceDefinition, handler: CDSHandler): this;
  hook(hookType: string, definition: CDSServiceDefinition): <H extends CDSHandler>(handler: H) => H;
  hook(hookType: string, definition: CDSServiceDefinition, handler?: CDSHandler): this | (<H extends CDSHandler>(handler: H) => H) {
    const make = prepareEntry(hookType, definition, this.#proxy);
    const register = <H extends CDSHandler>(h: H): H => {
      const entry = make(h);
      if (this.#closed) throw new FhirgateError('ERR_CLOSED', 'the CDS service is closed');
      if (this.#services.has(entry.discovery.id)) {
        throw new FhirgateError('ERR_DUPLICATE_NAME', `a CDS service with id "${entry.discovery.id}" is already registered`);
      }
      this.#services.set(entry.discovery.id, entry);
      return h;
    };
    if (handler === undefined) return register;
    register(handler);
    return this;
  }

  /**
   * The discovery document (`GET /cds-services`).
   *
   * @example
   * ```ts
   * cds.discovery().services.map((s) => s.id);
   * ```
   */
  discovery(): { services: CDSDiscoveryEntry[] } {
    return { services: [...this.#services.values()].map((s) => s.discovery) };
  }

  /** Stops answering calls (503) and forgets cached keys and token ids. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#auth?.clear();
    for (const entry of this.#services.values()) entry.auth?.clear();
    this.#proxy.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** The face the application host mounts. */
  [MOUNT](): Mountable {
    const env = this.#environment;
    const discovery = () => json(200, this.discovery());
    // With service-wide client JWTs, the JWT is the credential: the host must not ask for an API key too.
    const ownAuth = this.#auth !== null;
    const routes: Route[] = [
      { method: 'GET', path: '/cds-services', handle: discovery, public: true },
      { method: 'GET', path: '/cds-discovery', handle: discovery, public: true },
      { method: 'POST', path: '/cds-services/:id', handle: (req) => handleServiceCall(req, env), public: ownAuth },
      { method: 'POST', path: '/cds-services/:id/feedback', handle: (req) => handleFeedback(req, env), public: ownAuth },
    ];
    return {
      kind: 'service',
      defaultPath: '/cds',
      routes: () => routes,
      status: () => {
        const services = [...this.#services.values()].map((s) => s.discovery);
        return {
          status: this.#closed ? 'closed' : 'active',
          hooks: [...new Set(services.map((s) => s.hook))],
          services: services.map((s) => s.id),
        };
      },
      openapi: () => buildOpenAPI([...this.#services.values()].map((s) => s.discovery)),
      useEvents: (dispatcher) => {
        this.#dispatcher = dispatcher;
      },
      close: () => this.close(),
    };
  }
}
