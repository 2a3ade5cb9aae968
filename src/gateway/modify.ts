/**
 * Read-modify-write with optimistic locking, in two forms: a callback, and a handle that saves when an
 * `await using` scope ends; {@link modifyCall} runs either form as the gateway's public call(s).
 * @module
 */
import { isFhirgateError } from '../errors.js';
import type { ResourceType } from '../fhir/index.js';
import type { CallOptions } from './core/call-options.js';
import type { GatewayEngine } from './core/engine.js';

/**
 * Changes a resource in place, or returns the new version. May be async.
 *
 * @example
 * ```ts
 * const activate: ModifyFn<Patient> = (p) => { p.active = true; };
 * ```
 */
export type ModifyFn<R> = (resource: R) => void | R | Promise<void | R>;

/**
 * Tries of the callback form of `modify` when the server answers 412 (someone else saved first):
 * the resource is read again and the callback runs again on the new version.
 */
export const MODIFY_ATTEMPTS = 3;

/**
 * A resource read for modification. It is saved (with `If-Match` on the version read) when the
 * `await using` scope ends, or by {@link save}. **`await using` cannot tell whether the block threw**:
 * the save happens anyway, unless {@link discard} was called. Where the block may fail half-way, use
 * the callback form of `modify`, which saves only when the callback returns.
 * Nothing is sent when the resource did not change.
 *
 * @example
 * ```ts
 * {
 *   await using r = await gw.modify('Patient', '123', 'epic');
 *   r.resource.active = true;
 * } // saved here
 * ```
 */
export class ModifyHandle<R> implements AsyncDisposable {
  /** The resource as read; change it in place. */
  readonly resource: R;
  readonly #save: (resource: R) => Promise<R>;
  #settled: Promise<R> | undefined;
  #discarded = false;

  constructor(resource: R, save: (resource: R) => Promise<R>) {
    this.resource = resource;
    this.#save = save;
  }

  /**
   * Saves now (once; later calls and the end of the scope return the same result).
   *
   * @example
   * ```ts
   * const r = await gw.modify('Patient', '123', 'epic');
   * r.resource.active = true;
   * const saved = await r.save();
   * ```
   */
  save(): Promise<R> {
    this.#settled ??= this.#save(this.resource);
    return this.#settled;
  }

  /**
   * Drops the changes: the end of the scope saves nothing.
   *
   * @example
   * ```ts
   * const r = await gw.modify('Patient', '123', 'epic');
   * try { r.resource.active = true; } catch (e) { r.discard(); throw e; }
   * ```
   */
  discard(): void {
    this.#discarded = true;
  }

  /** Saves unless discarded or saved already. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (!this.#discarded) await this.save();
  }
}

/**
 * The read-modify-write loop of `modify(type, id, source, fn)`: reads, saves, and on a lost race
 * (`ERR_CONFLICT`) reads again, {@link MODIFY_ATTEMPTS} tries at most.
 */
export async function modifyWithRetries<R, T>(read: () => Promise<R>, save: (read: R) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const r = await read();
    try {
      return await save(r);
    } catch (err) {
      if (!isFhirgateError(err, 'ERR_CONFLICT') || attempt >= MODIFY_ATTEMPTS) throw err;
    }
  }
}

/**
 * `AsyncFHIRGateway.modify` on the gateway's engine: with a function, one public call that reads, runs it and saves
 * ({@link modifyWithRetries}); else one call that reads and returns a {@link ModifyHandle} whose save
 * is a second call.
 */
export function modifyCall<R>(engine: GatewayEngine, type: ResourceType, id: string, source: string | undefined, fnOrOptions: ModifyFn<R> | CallOptions | undefined, options: CallOptions | undefined): Promise<unknown> {
  if (typeof fnOrOptions !== 'function') {
    return engine.run(fnOrOptions, async (scope) => {
      const read = await engine.readVersioned(type, id, source, scope);
      const save = (r: R): Promise<R> => engine.run(fnOrOptions, (s) => engine.save(read, r, source, s)) as Promise<R>;
      return new ModifyHandle(read.resource as unknown as R, save);
    });
  }
  return engine.run(options, (scope) =>
    modifyWithRetries(
      () => engine.readVersioned(type, id, source, scope),
      async (read) => engine.save(read, (await fnOrOptions(read.resource as unknown as R)) ?? read.resource, source, scope),
    ),
  );
}
