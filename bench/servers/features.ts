/**
 * The per-request features both sides of the "same features" benchmarks switch on, for the Fastify side:
 * a request id per request (echoed as `X-Request-ID`), fhirgate's security header, one access-log line
 * per request at `info` written to a file, and a request counter per route and status. The fhirgate side
 * gets the same from `createServiceAPI({ logger, metrics: true })`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { createWriteStream, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogController, type FastifyInstance, type FastifyRequest } from 'fastify';
import { createJSONLogger } from '../../src/index.js';

/** A file in the temp folder, one per server process, that the access log goes to; removed when the process exits (runs left 2.5 GB of them). */
export function accessLogFile(name: string): string {
  const file = join(tmpdir(), `fhirgate-bench-${name}-${process.pid}.log`);
  process.once('exit', () => rmSync(file, { force: true }));
  return file;
}

/** fhirgate's default JSON logger at `info`, writing to a file instead of stdout. */
export function fhirgateFileLogger(name: string) {
  const out = createWriteStream(accessLogFile(name));
  return createJSONLogger({ level: 'info', stdout: out, stderr: out });
}

/** Fastify 5 options: its pino logger at `info` to a file, a UUID request id, no built-in two-line request logging. */
export function fastifyOptions(name: string) {
  return {
    logger: { level: 'info', file: accessLogFile(name) },
    genReqId: () => randomUUID(),
    logController: new LogController({ disableRequestLogging: true }),
  };
}

/** The hooks that add the request id and security headers, count the request and write its access line. */
export function addFastifyFeatures(app: FastifyInstance): void {
  const counts = new Map<string, number>();
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
    const trace = fastifyTraceOf(req);
    if (trace !== undefined) reply.header('x-trace-id', trace.traceId);
    reply.header('x-content-type-options', 'nosniff');
  });
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    const key = `${req.method} ${route} ${reply.statusCode}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    req.log.info({ request_id: req.id, trace_id: fastifyTraceOf(req)?.traceId, method: req.method, route, status: reply.statusCode, duration_ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
  });
}

/** The W3C trace context of one request on the Fastify side: what fhirgate's host keeps per request. */
interface FastifyTrace {
  readonly traceId: string;
  readonly spanId: string;
  readonly flags: string;
}

/** The request's trace for the handler and everything it starts (downstream calls read it), as `@fastify/request-context` keeps its store. */
const fastifyTraceScope = new AsyncLocalStorage<FastifyTrace>();

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZEROS = /^0+$/;

/**
 * What fhirgate's host does for W3C Trace Context (issue 37), written the way a Fastify user would: an
 * `onRequest` hook continues a valid `traceparent` (a new span id) or starts a trace, runs the rest of the
 * request in an `AsyncLocalStorage` scope (so that user code's downstream calls can read it, which
 * fhirgate's host gives its handlers), echoes `X-Trace-ID` and puts `trace_id` in the access line. The ids
 * come from `randomUUID`, which draws its entropy in blocks as fhirgate's ids do: two `randomBytes` calls
 * were about 20 µs a request in a Node 24 profile, against about 2 µs for the host's ids.
 * Register before {@link addFastifyFeatures}, whose hooks read it through {@link fastifyTraceOf}.
 */
export function addFastifyTraceContext(app: FastifyInstance): void {
  app.decorateRequest('trace', null);
  app.addHook('onRequest', (req, _reply, done) => {
    const header = req.headers.traceparent;
    const incoming = typeof header === 'string' ? TRACEPARENT.exec(header) : null;
    const valid = incoming !== null && !ZEROS.test(incoming[1]!) && !ZEROS.test(incoming[2]!);
    const trace: FastifyTrace = {
      traceId: valid ? incoming[1]! : randomUUID().replaceAll('-', ''),
      spanId: randomUUID().replaceAll('-', '').slice(0, 16),
      flags: valid ? incoming[3]! : '01',
    };
    (req as TracedRequest).trace = trace;
    fastifyTraceScope.run(trace, done);
  });
}

/** A request decorated by {@link addFastifyTraceContext}. */
type TracedRequest = FastifyRequest & { trace: FastifyTrace | null };

/** The trace {@link addFastifyTraceContext} gave `req`, if it was registered. */
export function fastifyTraceOf(req: FastifyRequest): FastifyTrace | undefined {
  return (req as Partial<TracedRequest>).trace ?? undefined;
}
