/**
 * Bulk Data exports of several sources at once, merged into one async iterable.
 * @module
 */
import { FhirgateError, isFhirgateError } from '../../errors.js';
import { numberOption } from '../../lib/options.js';
import { bulkExport } from './export.js';
import { checkBulkOptions, checkedSettings } from './options.js';
import type { BulkExportOptions, BulkSettings } from './options.js';
import type { BulkHost, BulkItem } from './types.js';

/**
 * Options of `bulkExportAll`: those of `bulkExport`, plus how many sources run at once.
 *
 * @example
 * ```ts
 * const options: BulkExportAllOptions = { types: ['Patient'], concurrency: 2 };
 * ```
 */
export interface BulkExportAllOptions extends BulkExportOptions {
  /** Sources exported at once, an integer >= 1. Default: all of them, but never more than the pool's `maxConnections`. */
  concurrency?: number;
}

type Step = { readonly run: AsyncGenerator<BulkItem, void, undefined>; readonly name: string; readonly result?: IteratorResult<BulkItem, void>; readonly error?: unknown };

/**
 * Exports every source in `names` (each as `bulkExport` does) and yields their items as they come,
 * each tagged with its `source`. At most `concurrency` exports run at once; the others start as
 * those finish. The first failure stops the others (their jobs are cancelled) and is thrown with
 * the source's name in its message and the same `code`. Leaving the loop early stops them all.
 */
export function bulkExportAll(host: BulkHost, names: readonly string[], options: BulkExportAllOptions = {}): AsyncGenerator<BulkItem, void, undefined> {
  if (!Array.isArray(names) || names.length === 0 || !names.every((n) => typeof n === 'string')) throw new TypeError('sources must be a non-empty array of source names');
  const limit = numberOption(options?.concurrency, 'options.concurrency', Infinity, { integer: true, min: 1 });
  return merge(host, [...new Set(names)], checkBulkOptions(options, 'bulkExportAll'), Math.min(limit, host.maxConnections));
}

async function* merge(host: BulkHost, names: string[], settings: BulkSettings, limit: number): AsyncGenerator<BulkItem, void, undefined> {
  const stop = new AbortController();
  const signal = settings.signal === undefined ? stop.signal : AbortSignal.any([settings.signal, stop.signal]);
  const waiting = [...names];
  const running = new Map<AsyncGenerator<BulkItem, void, undefined>, Promise<Step>>();
  const step = (run: AsyncGenerator<BulkItem, void, undefined>, name: string): Promise<Step> =>
    run.next().then((result) => ({ run, name, result }), (error: unknown) => ({ run, name, error }));
  const startMore = (): void => {
    while (running.size < limit && waiting.length > 0) {
      const name = waiting.shift() as string;
      const run = bulkExport(host, name, checkedSettings({ ...settings, signal }));
      running.set(run, step(run, name));
    }
  };
  try {
    startMore();
    while (running.size > 0) {
      const { run, name, result, error } = await Promise.race(running.values());
      if (result === undefined) throw sourceError(name, error);
      if (result.done === true) {
        running.delete(run);
        startMore();
        continue;
      }
      running.set(run, step(run, name));
      yield result.value;
    }
  } finally {
    stop.abort();
    await Promise.allSettled([...running].map(async ([run, pending]) => {
      await pending;
      await run.return();
    }));
  }
}

/** The error of one source, with its name in the message and the same code. */
function sourceError(name: string, error: unknown): unknown {
  if (!isFhirgateError(error)) return error;
  return new FhirgateError(error.code, `source "${name}": ${error.message}`, { status: error.status, cause: error });
}
