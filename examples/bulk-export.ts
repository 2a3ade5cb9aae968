/**
 * FHIR Bulk Data export (Bulk Data Access IG 2.0.0): `gw.bulkExport()` kicks off `$export`, polls the
 * status URL as the server's `Retry-After` says, then streams each NDJSON file a line at a time, so
 * that an export of any size runs in constant memory. Here every resource is appended to one NDJSON
 * file per type under a temporary folder (what `fhirgate export --out` does), and progress comes as
 * events. Leaving the loop, or aborting its signal, cancels the job on the server.
 *
 * Run it: `node --import tsx examples/bulk-export.ts`
 * (set FHIR_CONNECTION_STRING to export from your own Bulk Data server instead of the sandbox).
 * @module
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsyncFHIRGateway, LocalEventDispatcher, isFhirgateError } from '../src/index.js';
import { openFhirSource } from './support/fhir-source.js';

// Bulk events carry counts and the server's X-Progress, never a resource.
const events = new LocalEventDispatcher();
events.register('fhir.bulk.kickoff', ([, p]) => console.log(`kick-off: ${p.level} types=${p.types} since=${p.since}`));
events.register('fhir.bulk.progress', ([, p]) => console.log(`progress: ${p.progress ?? 'no X-Progress'}`));
events.register('fhir.bulk.complete', ([, p]) => console.log(`complete: ${p.file_count} files, ${p.resource_count} resources, ${p.error_count} errors, ${p.bytes} bytes`));

await using fhir = await openFhirSource();
await using gw = new AsyncFHIRGateway({ dispatcher: events });
gw.addSource('ehr', fhir.connectionString);
console.log(`source "ehr": ${fhir.label}`);

const out = mkdtempSync(join(tmpdir(), 'fhirgate-export-'));
const files = new Map<string, WriteStream>();
const counts = new Map<string, number>();
try {
  const exported = gw.bulkExport('ehr', {
    types: ['Patient', 'Observation', 'Condition'],
    since: '2000-01-01',
    signal: AbortSignal.timeout(10 * 60_000), // give up (and cancel the job) after 10 minutes
  });
  for await (const item of exported) {
    if (item.kind === 'error') {
      console.warn(`server-side error from ${item.url}: ${JSON.stringify(item.resource)}`);
      continue;
    }
    let file = files.get(item.type);
    if (file === undefined) files.set(item.type, (file = createWriteStream(join(out, `${item.type}.ndjson`))));
    // Respect the file's back-pressure: the export waits while the disk catches up.
    if (!file.write(`${JSON.stringify(item.resource)}\n`)) await once(file, 'drain');
    counts.set(item.type, (counts.get(item.type) ?? 0) + 1);
  }
  for (const [type, n] of counts) console.log(`${type}: ${n} resource(s) written to ${type}.ndjson`);
} catch (err) {
  if (!isFhirgateError(err)) throw err;
  console.log(`export failed: ${err.code}: ${err.message}`);
  process.exitCode = 1;
} finally {
  await Promise.all([...files.values()].map((f) => new Promise((resolve) => f.end(resolve))));
  rmSync(out, { recursive: true, force: true });
}
