/**
 * The completed export's manifest: its files, checked, and where each may be downloaded from.
 * @module
 */
import { FhirgateError } from '../../errors.js';
import type { Source } from '../core/source-registry.js';
import type { BulkItem } from './types.js';

/** One file of a manifest to download. */
export interface BulkFile {
  readonly kind: BulkItem['kind'];
  /** The manifest's `type` (`OperationOutcome` for error files, `Bundle` for deleted ones when absent). */
  readonly type: string;
  readonly url: URL;
}

/**
 * What a manifest says: its files (`output`, then `deleted`, then `error`, each in manifest order),
 * whether they need the access token, and its `transactionTime`.
 */
export interface Manifest {
  readonly files: readonly BulkFile[];
  readonly requiresAccessToken: boolean;
  readonly transactionTime: string | undefined;
}

const KINDS = ['output', 'deleted', 'error'] as const;

/**
 * Checks a manifest (Bulk Data IG 2.0.0: `requiresAccessToken` boolean, `output` and `error` arrays of
 * `{type, url}`, optional `deleted`): a malformed one is `ERR_BULK_RESPONSE`. Every file URL must be
 * on the source's origin or one of `fileOrigins`, else `ERR_CROSS_ORIGIN` before anything is
 * downloaded.
 */
export function readManifest(value: unknown, src: Source, fileOrigins: readonly string[]): Manifest {
  const what = `bulk export at source "${src.name}": the manifest`;
  const json = value as Record<string, unknown>;
  const bad = (why: string): FhirgateError => new FhirgateError('ERR_BULK_RESPONSE', `${what} ${why}`);
  if (typeof json.requiresAccessToken !== 'boolean') throw bad('has no boolean "requiresAccessToken"');
  if (!Array.isArray(json.output)) throw bad('has no "output" array');
  const files: BulkFile[] = [];
  for (const kind of KINDS) {
    const list = json[kind] ?? [];
    if (!Array.isArray(list)) throw bad(`has a "${kind}" that is not an array`);
    list.forEach((entry: { type?: unknown; url?: unknown } | null, i) => {
      const url = typeof entry?.url === 'string' && URL.canParse(entry.url) ? new URL(entry.url) : undefined;
      if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw bad(`has a ${kind}[${i}].url that is not an absolute http(s) URL`);
      if (kind === 'output' && typeof entry?.type !== 'string') throw bad(`has an output[${i}] without a "type"`);
      if (url.origin !== src.origin && !fileOrigins.includes(url.origin)) {
        throw new FhirgateError('ERR_CROSS_ORIGIN', `${what} names a file on ${url.origin}, not the source's origin; allow it with the option fileOrigins`);
      }
      files.push({ kind, type: typeof entry?.type === 'string' ? entry.type : kind === 'error' ? 'OperationOutcome' : 'Bundle', url });
    });
  }
  return { files, requiresAccessToken: json.requiresAccessToken, transactionTime: typeof json.transactionTime === 'string' ? json.transactionTime : undefined };
}
