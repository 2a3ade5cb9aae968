/**
 * The per-request features both sides of the "same features" benchmarks switch on, for the Fastify side:
 * a request id per request (echoed as `X-Request-ID`), fhirgate's security header, one access-log line
 * per request at `info` written to a file, and a request counter per route and status. The fhirgate side
 * gets the same from `createServiceAPI({ logger, metrics: true })`.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogController, type FastifyInstance } from 'fastify';
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
    reply.header('x-content-type-options', 'nosniff');
  });
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    const key = `${req.method} ${route} ${reply.statusCode}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    req.log.info({ request_id: req.id, method: req.method, route, status: reply.statusCode, duration_ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
  });
}
