/**
 * Starting and stopping the whole demo in this process: two sandbox sources, an `AsyncFHIRGateway` with
 * transform and aggregate handlers, a CDS Hooks service, a NoteReader service and create/update/delete
 * routes, mounted in one `createServiceAPI` host, with every event logged as an audit line.
 * @module
 */
import type { AddressInfo } from 'node:net';
import { AsyncFHIRGateway, createJSONLogger, createServiceAPI, localHandler, type Logger } from '../../src/index.js';
import { auditFields } from './audit.js';
import { createCdsService } from './cds.js';
import { demoOpenAPIExamples } from './docs-examples.js';
import { registerHandlers } from './handlers.js';
import { createNoteReaderService } from './notereader.js';
import { registerRecordRoutes } from './record-routes.js';
import { SHARED_PATIENT, sampleRequests, writeRequests, type SampleRequest, type WriteRequest } from './requests.js';
import { startSources, type DemoSources } from './sources.js';

/**
 * Options of {@link startDemo}.
 *
 * @example
 * ```ts
 * const options: DemoOptions = { port: 0, logger: createJSONLogger({ level: 'warn' }) };
 * ```
 */
export interface DemoOptions {
  /** The host's TCP port; 0 picks a free one. Default 8000. */
  port?: number;
  /** The interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /**
   * Where the host's lines (one access line per request at `info`, warnings, errors) and the audit trail
   * (one `info` line per event) go. Default: JSON lines on stdout at `info`.
   */
  logger?: Logger;
}

/**
 * A running demo.
 *
 * @example
 * ```ts
 * const demo = await startDemo({ port: 0 });
 * console.log(`${demo.origin}/docs`);
 * await demo.close();
 * ```
 */
export interface Demo {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** The port the host listens on (the real one when 0 was asked for). */
  readonly port: number;
  /** The two sources; `sources.keyPath` is ehr-b's private key file, removed by `close()`. */
  readonly sources: DemoSources;
  /** The suggested requests, with real ids. */
  readonly requests: readonly SampleRequest[];
  /** The suggested writes (create, update, delete), to paste after the requests. */
  readonly writes: readonly WriteRequest[];
  /** Closes the host (which closes the gateway and services), then the sandboxes, then removes the key. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts the demo. Bad options throw `TypeError`/`RangeError` before anything starts. On failure (such as a busy port: a Node error with `code` `EADDRINUSE`) everything
 * started so far is stopped and the key file removed before the error is rethrown.
 *
 * @example
 * ```ts
 * const demo = await startDemo({ port: 0, logger: createJSONLogger({ level: 'debug', stdout, stderr: stdout }) });
 * ```
 */
export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
  const { port = 8000, host = '127.0.0.1', logger = createJSONLogger({ stderr: process.stdout }) } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError('startDemo: options.port must be an integer from 0 to 65535');
  if (typeof host !== 'string' || host === '') throw new TypeError('startDemo: options.host must be a non-empty string');
  if (typeof logger !== 'object' || logger === null || typeof logger.info !== 'function') throw new TypeError('startDemo: options.logger must be a Logger (debug, info, warn, error)');
  const sources = await startSources();
  const gw = new AsyncFHIRGateway();
  const app = createServiceAPI({
    title: 'fhirgate demo',
    description: 'Two FHIR sources (ehr-a, ehr-b) behind one gateway, a CDS Hooks service and a NoteReader SOAP service.',
    logger,
    // Real ids, so that every pre-filled form on /docs answers 200 as it is.
    openapiExamples: demoOpenAPIExamples(),
  });
  let stopAudit: (() => void) | undefined;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= (async () => {
    try {
      await app.close();
      await gw.close();
    } finally {
      stopAudit?.();
      await sources.close();
    }
  })());
  try {
    for (const s of sources.list) gw.addSource(s.name, s.connectionString);
    registerHandlers(gw);
    await recordVisitAtEhrB(gw);
    app.registerGateway(gw, { path: '/fhir' });
    app.registerService(createCdsService(gw), { path: '/cds' });
    app.registerService(createNoteReaderService(), { path: '/notereader' });
    registerRecordRoutes(app);
    const server = await app.listen(port, host);
    // From here on, so that the start-up write to ehr-b does not print before the banner.
    stopAudit = localHandler.register('*', (event) => logger.info('event', auditFields(event)));
    const actual = (server.address() as AddressInfo).port;
    return {
      origin: `http://${host.includes(':') ? `[${host}]` : host}:${actual}`,
      port: actual,
      sources,
      requests: sampleRequests(),
      writes: writeRequests(),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Gives ehr-b a problem of ehr-a's patient, so that aggregating shows both sources (and ehr-b's JWT auth works). */
async function recordVisitAtEhrB(gw: AsyncFHIRGateway): Promise<void> {
  await gw.create({
    resourceType: 'Condition',
    clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'active' }] },
    code: { coding: [{ system: 'http://snomed.info/sct', code: '55822004', display: 'Hyperlipidemia' }], text: 'Hyperlipidemia' },
    subject: { reference: `Patient/${SHARED_PATIENT.id}`, display: `${SHARED_PATIENT.given} ${SHARED_PATIENT.family}` },
    onsetDateTime: '2024-05-02',
  }, 'ehr-b');
}
