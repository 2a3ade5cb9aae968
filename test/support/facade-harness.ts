/**
 * A gateway + facade app for tests, served on 127.0.0.1 port 0 through a listener that keeps every
 * answer (status, headers, body). When the test ends, every answer is grepped for each upstream base
 * and origin, and for every secret the test names (API keys, JWTs, client secrets, cookies): one leak
 * fails the test. So every facade test of the suite is also a leak test.
 * @module
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { LocalEventDispatcher } from '../../src/events/index.js';
import { FHIRFacade } from '../../src/facade/index.js';
import type { FHIRFacadeOptions } from '../../src/facade/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import type { AsyncFHIRGatewayOptions } from '../../src/gateway/index.js';
import { createServiceAPI } from '../../src/host/index.js';
import { captureLogger } from './logger.js';

/** One answer the facade sent. */
export interface Answer {
  readonly line: string;
  readonly status: number;
  readonly headers: Record<string, unknown>;
  readonly body: string;
}

/** A running facade. */
export interface FacadeHarness {
  /** `http://127.0.0.1:PORT/fhir` (the prefix; sources are under it). */
  readonly prefix: string;
  readonly gateway: AsyncFHIRGateway;
  readonly answers: Answer[];
  /** Every AuditEvent sent as a `fhir.audit` event, parsed. */
  readonly audits: Record<string, any>[];
}

/**
 * Starts a gateway over `sources` (name → connection string) with a facade, on port 0; checks for
 * leaks of the upstream bases and `secrets` when the test ends; `gatewayOptions` go to the gateway (its
 * `identity`, `tokenStore`).
 *
 * @example
 * ```ts
 * const h = await facadeHarness(t, { ehr: sb.connectionString() }, { callers }, ['my-secret']);
 * ```
 */
export async function facadeHarness(t: TestContext, sources: Record<string, string>, options: FHIRFacadeOptions, secrets: readonly string[] = [], gatewayOptions: AsyncFHIRGatewayOptions = {}): Promise<FacadeHarness> {
  const gateway = new AsyncFHIRGateway({ maxRetries: 0, ...gatewayOptions });
  for (const [name, cs] of Object.entries(sources)) gateway.addSource(name, cs);
  const audits: Record<string, any>[] = [];
  const dispatcher = new LocalEventDispatcher();
  dispatcher.register('fhir.audit', ([, payload]) => void audits.push(JSON.parse(String(payload.audit_event))));
  const app = createServiceAPI({ dispatcher, logger: captureLogger() });
  app.registerGateway(gateway, { path: '/fhir' });
  app.registerService(new FHIRFacade(gateway, options), { path: '/fhir' });
  const answers: Answer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as string));
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as string));
      answers.push({ line: `${req.method} ${req.url}`, status: res.statusCode, headers: res.getHeaders(), body: Buffer.concat(chunks).toString('utf8') });
      return (end as (...a: unknown[]) => typeof res)(chunk, ...rest);
    }) as typeof res.end;
    app.handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  app.markReady();
  const prefix = `http://127.0.0.1:${(server.address() as AddressInfo).port}/fhir`;
  const bases = gateway.sourceNames.map((s) => gateway.sourceBaseUrl(s));
  t.after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.close();
    await gateway.close();
    assertNoLeak(answers, [...bases, ...bases.map((b) => new URL(b).host), ...secrets]);
  });
  return { prefix, gateway, answers, audits };
}

/**
 * Fails when any answer holds any of `needles` (in its body or a header).
 *
 * @example
 * ```ts
 * assertNoLeak(answers, ['http://127.0.0.1:4000/fhir', 'a-secret']);
 * ```
 */
export function assertNoLeak(answers: readonly Answer[], needles: readonly string[]): void {
  for (const a of answers) {
    const text = `${JSON.stringify(a.headers)}\n${a.body}`;
    for (const needle of needles) assert.ok(!text.includes(needle), `${a.line} (${a.status}) leaks ${JSON.stringify(needle.slice(0, 12))}…`);
  }
}
