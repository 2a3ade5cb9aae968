/**
 * Loading the user's handler modules named in the config (`gateway.module`, `cds.module`,
 * `notereader.module`).
 * @module
 */
import { pathToFileURL } from 'node:url';
import type { AsyncFHIRGateway } from '../gateway/index.js';
import { configError } from './config/checks.js';

/**
 * What a handler module's setup function receives besides the component it fills in.
 *
 * @example
 * ```ts
 * // cds-handlers.ts, named by cds.module in the config file
 * const setup: HandlerSetup<CDSHooksService> = (cds, { gateway }) => {
 *   cds.hook('patient-view', { id: 'hello', description: 'Greets' }, async () => ({ cards: [] }));
 *   console.log(gateway.getPoolStatus().totals);
 * };
 * export default setup;
 * ```
 */
export interface HandlerModuleContext {
  /** The gateway over the configured sources, to read through. */
  readonly gateway: AsyncFHIRGateway;
}

/**
 * A handler module's setup function: registers handlers on `target` (a gateway, a `CDSHooksService`
 * or a `NoteReaderService`).
 *
 * @example
 * ```ts
 * const setup: HandlerSetup<AsyncFHIRGateway> = (gw) => { gw.transform('Patient', (id, s) => gw.read('Patient', id, s)); };
 * ```
 */
export type HandlerSetup<T> = (target: T, context: HandlerModuleContext) => void | Promise<void>;

/**
 * Imports the module at `file` and runs its default export (or its `setup` export) on `target`. A
 * module that cannot be loaded, exports no function or whose setup throws is `ERR_CONFIG` naming `path`.
 */
export async function runHandlerModule<T>(file: string, path: string, target: T, context: HandlerModuleContext): Promise<void> {
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw configError(path, `cannot load ${file}: ${describe(error)}`);
  }
  const setup = typeof loaded.default === 'function' ? loaded.default : loaded.setup;
  if (typeof setup !== 'function') throw configError(path, `${file} must export a setup function (export default function (target, { gateway }) { … })`);
  try {
    await (setup as HandlerSetup<T>)(target, context);
  } catch (error) {
    throw configError(path, `the setup function of ${file} threw: ${describe(error)}`);
  }
}

/** The first line of an error, short: enough to find the mistake in one's own module. */
function describe(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.split('\n')[0]!.slice(0, 200);
}
