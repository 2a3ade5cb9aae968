/**
 * `NoteReaderService`: Epic NoteReader style SOAP 1.1 `ProcessDocument`, mounted by the host.
 * @module
 */
import { localHandler } from '../events/index.js';
import type { EventDispatcher } from '../events/types.js';
import { FhirgateError } from '../errors.js';
import { MOUNT } from '../mount/index.js';
import type { Mountable, RouteRequest, RouteReply } from '../mount/index.js';
import { describeService, noteReaderOpenAPI } from './describe.js';
import { handlePost } from './handle-post.js';
import { checkNCName, resolveOptions } from './options.js';
import type { ResolvedOptions } from './options.js';
import type { NoteReaderHandler, NoteReaderServiceOptions } from './types.js';
import { buildWSDL } from './wsdl.js';

const XML = 'text/xml; charset=utf-8';

/**
 * A SOAP 1.1 service in the style of Epic NoteReader CDI: `POST` a `ProcessDocument` envelope with a
 * base64 CDA document, get the handler's document back; `GET ?wsdl` gives the WSDL with the address the
 * service is reached at. Mount it with `app.registerService(nr)` (default path `/notereader`).
 *
 * @example
 * ```ts
 * const nr = new NoteReaderService();
 * nr.method('ProcessDocument', ({ document }) => ({ document, error: null }));
 * // or, as a wrapper: nr.method('ProcessDocument')(async (request) => request.document);
 * app.registerService(nr, { path: '/notereader' });
 * ```
 */
export class NoteReaderService {
  readonly #options: ResolvedOptions;
  readonly #handlers = new Map<string, NoteReaderHandler>();
  #dispatcher: EventDispatcher | null;

  constructor(options: NoteReaderServiceOptions = {}) {
    this.#options = resolveOptions(options);
    this.#dispatcher = this.#options.dispatcher ?? localHandler;
  }

  /** The operation names with a handler, in registration order. */
  get methods(): string[] {
    return [...this.#handlers.keys()];
  }

  /**
   * Registers the handler of an operation (`ProcessDocument`). Without a handler, returns a wrapper that
   * registers the function it is given and returns it unchanged. A name registered twice throws
   * `ERR_DUPLICATE_NAME`.
   *
   * @example
   * ```ts
   * nr.method('ProcessDocument', (req) => req.document);
   * const handler = nr.method('ProcessDocument')((req) => ({ document: req.document }));
   * ```
   */
  method(name: string, handler: NoteReaderHandler): this;
  method(name: string): <H extends NoteReaderHandler>(handler: H) => H;
  method(name: string, handler?: NoteReaderHandler): this | (<H extends NoteReaderHandler>(handler: H) => H) {
    checkNCName(name, 'name');
    if (handler === undefined) {
      return <H extends NoteReaderHandler>(h: H): H => {
        this.method(name, h);
        return h;
      };
    }
    if (typeof handler !== 'function') throw new TypeError('handler must be a function');
    if (this.#handlers.has(name)) throw new FhirgateError('ERR_DUPLICATE_NAME', `a handler for ${name} is already registered`);
    this.#handlers.set(name, handler);
    return this;
  }

  #get(req: RouteRequest): RouteReply {
    const o = this.#options;
    if (![...req.query.keys()].some((k) => k.toLowerCase() === 'wsdl')) {
      return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: describeService(o.serviceName, this.methods, req.baseUrl) };
    }
    const wsdl = buildWSDL({ namespace: o.namespace, serviceName: o.serviceName, portName: o.portName, operations: this.methods, address: o.publicUrl ?? req.baseUrl });
    return { status: 200, headers: { 'content-type': XML }, body: wsdl };
  }

  /**
   * The face the application host mounts: `POST ''` (SOAP) and `GET ''` (`?wsdl`, public).
   *
   * @example
   * ```ts
   * const face = nr[MOUNT](); face.defaultPath; // '/notereader'
   * ```
   */
  [MOUNT](): Mountable {
    return {
      kind: 'service',
      defaultPath: '/notereader',
      routes: () => [
        { method: 'POST', path: '', handle: (req) => handlePost(req, { options: this.#options, handlers: this.#handlers, dispatcher: this.#dispatcher }) },
        { method: 'GET', path: '', public: true, handle: (req) => this.#get(req) },
      ],
      status: () => ({ status: 'active', methods: this.methods }),
      openapi: () => noteReaderOpenAPI(this.#options.serviceName, this.methods, this.#options.namespace),
      useEvents: (dispatcher) => {
        this.#dispatcher = dispatcher;
      },
      close: () => this.close(),
    };
  }

  /**
   * Nothing to release (the service holds no sockets or workers); present for the host's lifecycle.
   * Idempotent.
   *
   * @example
   * ```ts
   * await nr.close();
   * ```
   */
  async close(): Promise<void> {}
}
