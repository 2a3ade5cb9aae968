/**
 * Downloading one export file and reading it a resource at a time.
 * @module
 */
import { addAbortSignal } from 'node:stream';
import type { Readable } from 'node:stream';
import { FhirgateError, isFhirgateError } from '../../errors.js';
import type { Resource } from '../../fhir/index.js';
import { abortError } from '../../http/signals.js';
import type { Source } from '../core/source-registry.js';
import { MAX_RESOURCE_DEPTH, nestsDeeperThan } from '../../lib/json-depth.js';
import { isJSONObject } from '../../lib/json-object.js';
import type { BulkFile } from './manifest.js';
import { ndjsonLines } from './ndjson-lines.js';
import type { BulkHost } from './types.js';

/** What one export counted so far (the `fhir.bulk.complete` event's numbers). */
export interface BulkCounts {
  files: number;
  output: number;
  error: number;
  deleted: number;
  bytes: number;
}

/**
 * GETs one file (`Accept: application/fhir+ndjson`; the access token only when `withToken`) and
 * yields its resources as they arrive. The body is streamed: only the current line is in memory,
 * and the sender waits while the consumer does. A line that is not a resource, a file cut in the
 * middle of a line, or a connection lost before the end is `ERR_BULK_FILE` naming the line; no data
 * for `timeoutMs` (the source's time-out) is `ERR_TIMEOUT`; the signal, `ERR_ABORTED`.
 */
export async function* readFile(
  host: BulkHost,
  src: Source,
  file: BulkFile,
  withToken: boolean,
  fileOrigins: readonly string[],
  signal: AbortSignal | undefined,
  counts: BulkCounts,
): AsyncGenerator<Resource, void, undefined> {
  const what = `bulk export at source "${src.name}": ${file.kind} file ${file.url.origin}${file.url.pathname}`;
  const res = await host.call(src, {
    method: 'GET',
    url: file.url,
    headers: { accept: 'application/fhir+ndjson' },
    operation: 'bulk export download',
    reference: `${file.kind} file`,
    signal,
    stream: true,
    origins: fileOrigins,
    anonymous: !withToken,
  });
  const stream = res.stream as Readable;
  if (signal !== undefined) addAbortSignal(signal, stream);
  const idle = setTimeout(() => stream.destroy(new FhirgateError('ERR_TIMEOUT', `${what}: no data for ${src.timeoutMs / 1000} s`)), src.timeoutMs);
  let lines = 0;
  try {
    for await (const line of ndjsonLines(stream, host.maxLineBytes, counts, what)) {
      idle.refresh();
      if (line.text.trim() === '') continue;
      lines = line.number;
      yield parseLine(line.text, line.number, line.unterminated, file, what);
    }
    if ((stream as Readable & { complete?: boolean }).complete === false) throw cutShort(what, lines, undefined);
  } catch (err) {
    if (signal?.aborted === true) throw abortError(signal, what);
    if (isFhirgateError(err)) throw err;
    if (host.closed()) throw new FhirgateError('ERR_CLOSED', `${what}: the gateway was closed during the download`, { cause: err });
    throw cutShort(what, lines, err);
  } finally {
    clearTimeout(idle);
    stream.destroy();
  }
}

function cutShort(what: string, lines: number, cause: unknown): FhirgateError {
  return new FhirgateError('ERR_BULK_FILE', `${what}: the connection closed before the end of the file (after line ${lines})`, { cause });
}

function parseLine(text: string, number: number, unterminated: boolean, file: BulkFile, what: string): Resource {
  let value: unknown;
  if (nestsDeeperThan(text, MAX_RESOURCE_DEPTH)) {
    throw new FhirgateError('ERR_BULK_FILE', `${what}: line ${number} nests more than ${MAX_RESOURCE_DEPTH} levels deep`);
  }
  try {
    value = JSON.parse(text);
  } catch (cause) {
    const why = unterminated ? `the file ends in the middle of line ${number}` : `line ${number} is not JSON`;
    throw new FhirgateError('ERR_BULK_FILE', `${what}: ${why}`, { cause });
  }
  const type = (value as { resourceType?: unknown } | null)?.resourceType;
  if (!isJSONObject(value) || typeof type !== 'string') {
    throw new FhirgateError('ERR_BULK_FILE', `${what}: line ${number} is not a FHIR resource`);
  }
  if (file.kind === 'error' && type !== 'OperationOutcome') {
    throw new FhirgateError('ERR_BULK_FILE', `${what}: line ${number} of an error file is a ${type.slice(0, 64)}, not an OperationOutcome`);
  }
  return value as unknown as Resource;
}
