/**
 * One Bulk Data export from one source, as an async iterable: kick-off, status requests, then each
 * file read a resource at a time.
 * @module
 */
import type { BulkExportOptions, BulkSettings } from './options.js';
import { checkBulkOptions } from './options.js';
import { awaitManifest, deleteJob, exportPath, kickOff } from './job.js';
import { readManifest } from './manifest.js';
import type { Manifest } from './manifest.js';
import { readFile } from './read-file.js';
import type { BulkCounts } from './read-file.js';
import type { BulkHost, BulkItem } from './types.js';

/**
 * Runs an export of `source` (Bulk Data Access IG 2.0.0) and yields every line of its files as a
 * {@link BulkItem}. The options are checked at once (`TypeError`/`RangeError`); nothing is sent until
 * the first `next()`. Events: `fhir.bulk.kickoff`, `fhir.bulk.progress` (each 202, with
 * `X-Progress`), `fhir.bulk.complete` (counts only). When the export is aborted, fails, or the loop
 * is left before the manifest, the job is cancelled with `DELETE` on its status URL; after the
 * manifest, `DELETE` tells the server the files may go (unless `deleteJob: false`).
 */
export function bulkExport(host: BulkHost, source: string | undefined, options?: BulkExportOptions | BulkSettings): AsyncGenerator<BulkItem, void, undefined> {
  return run(host, source, checkBulkOptions(options));
}

async function* run(host: BulkHost, name: string | undefined, settings: BulkSettings): AsyncGenerator<BulkItem, void, undefined> {
  const src = host.source(name);
  const started = performance.now();
  const statusUrl = await kickOff(host, src, settings);
  host.emit('fhir.bulk.kickoff', () => ({
    source: src.name,
    operation: 'export',
    level: exportPath(settings),
    types: settings.types.length === 0 ? undefined : settings.types.join(','),
    since: settings.since,
  }));
  let manifest: Manifest | undefined;
  try {
    manifest = readManifest(await awaitManifest(host, src, statusUrl, settings), src, settings.fileOrigins);
    const counts: BulkCounts = { files: 0, output: 0, error: 0, deleted: 0, bytes: 0 };
    for (const file of manifest.files) {
      for await (const resource of readFile(host, src, file, manifest.requiresAccessToken, settings.fileOrigins, settings.signal, counts)) {
        counts[file.kind]++;
        yield { kind: file.kind, source: src.name, type: resource.resourceType, url: file.url.href, resource };
      }
      counts.files++;
    }
    host.emit('fhir.bulk.complete', () => ({
      source: src.name,
      operation: 'export',
      file_count: counts.files,
      resource_count: counts.output,
      error_count: counts.error,
      deleted_count: counts.deleted,
      bytes: counts.bytes,
      duration_ms: Math.round(performance.now() - started),
    }));
  } finally {
    if (manifest === undefined || settings.deleteJob) await deleteJob(host, src, statusUrl);
  }
}
