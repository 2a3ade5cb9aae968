/**
 * `fhirgate serve`: a gateway host from a config file or from `--source` options, without code.
 * @module
 */
import type { AddressInfo } from 'node:net';
import { serveCluster } from '../cluster/index.js';
import { createLogger } from '../host/index.js';
import type { Logger } from '../mount/index.js';
import type { ProxyOptions } from '../http/proxy-options.js';
import { buildApp } from './build-app.js';
import { userTracer } from './otel-tracer.js';
import type { TracerLike } from '../lib/tracer.js';
import type { CliIO, Command, OptionValues } from './command.js';
import { UsageError } from './command.js';
import { configError, optionalWorkers } from './config/checks.js';
import { CONFIG_HELP } from './config/config-help.js';
import { optionalReusePort } from './config/reuse-port.js';
import type { FhirgateConfig } from './config/config-types.js';
import { optionalPublicUrl } from './config/public-address.js';
import { proxyFromEnv } from './proxy-env.js';
import { servedPrefixes, hostPaths } from './served-paths.js';
import { apiKeysOf, logFormatOf, logLevelOf, portOf, prefixOf, settingsOf, SOURCE_OPTIONS } from './settings.js';
import { untilStopped } from './until-stopped.js';

/**
 * The `serve` command: builds the app, listens, and runs until SIGINT/SIGTERM, then closes cleanly
 * (requests in flight finish).
 */
export const SERVE_COMMAND: Command = {
  name: 'serve',
  summary: 'Serve a gateway over the configured FHIR sources (plus optional CDS Hooks and NoteReader services)',
  usage: 'fhirgate serve (--config <file> | --source <name=fhir://…>…) [options]',
  options: {
    ...SOURCE_OPTIONS,
    port: { type: 'string', short: 'p', value: 'n', description: 'Port to listen on; 0 picks a free one. Default: PORT, else the file\'s port, else 8000' },
    host: { type: 'string', value: 'address', description: 'Interface to listen on. Default: the file\'s host, else 127.0.0.1 (0.0.0.0 for all)' },
    prefix: { type: 'string', value: 'path', description: 'Path prefix of the gateway. Default: the file\'s gateway.path, else /fhir' },
    workers: {
      type: 'string',
      value: 'n|auto',
      description: 'Serve with n worker processes on the one port (node:cluster; auto: one per core), each building the app from the same config. Default: the file\'s workers, else one process',
    },
    'reuse-port': {
      type: 'string',
      value: 'auto|true|false',
      description: 'With --workers: each worker listens on the port itself (SO_REUSEPORT; Node 22.12+ on Linux); auto: where net.ipv4.tcp_migrate_req is 1. Default: the file\'s reusePort, else auto',
    },
    'public-url': { type: 'string', value: 'url', description: 'The URL callers reach this host at (WSDL address, /fhir/metadata url, CDS aud). Default: the file\'s publicUrl, else from the connection' },
    metrics: { type: 'boolean', description: 'Serve GET /metrics (Prometheus text format). Default: the file\'s metrics, else off' },
  },
  details: [
    'SIGTERM or SIGINT drains (readinessDrainMs, then requests in flight finish) and exits 0; with --workers the',
    'primary drains every worker, SIGHUP replaces them one at a time.',
    '',
    'Outbound connections (sources, token endpoints, CDS prefetch) go through HTTPS_PROXY / HTTP_PROXY except to NO_PROXY hosts, as with curl.',
    'Environment: PORT (the port), LOG_LEVEL (debug, info, warn, error; default info), LOG_FORMAT (json, pretty; default pretty on a terminal), FHIRGATE_API_KEYS',
    '(comma-separated API keys, when the file sets no apiKeys). Logs are JSON lines, one per request at info.',
    '',
    'Examples:',
    '  fhirgate serve --config fhirgate.json',
    '  fhirgate serve --source \'ehr=fhir://ehr.example.org/r4/?client_id=app&client_secret=${EHR_SECRET}&token_url=https://ehr.example.org/token\' \\',
    '                 --source lab=fhir://localhost:8080/fhir/ --port 8000',
    '  fhirgate serve --config fhirgate.json --workers auto --metrics --host 0.0.0.0',
    '',
    'In single quotes, ${EHR_SECRET} is expanded by fhirgate, percent-encoded (any secret works) and never shown by ps.',
    'At start-up the "serving" line says what is served: each component under its prefix, sources by name.',
    '',
    ...CONFIG_HELP,
  ],
  run: serve,
};

async function serve(values: OptionValues, io: CliIO): Promise<number> {
  const file = await settingsOf(values, io);
  if (file.sources.size === 0) throw new UsageError('serve needs at least one source: --config with "sources", or --source name=fhir://…');
  const port = portOf(values, io, file);
  const prefix = prefixOf(values, file);
  const host = (values.host as string | undefined) ?? file.host ?? '127.0.0.1';
  const workers = optionalWorkers(values.workers, '--workers') ?? file.workers;
  const reusePort = optionalReusePort(values['reuse-port'], '--reuse-port') ?? file.reusePort;
  const publicUrl = optionalPublicUrl(values['public-url'], '--public-url') ?? file.publicUrl;
  const config: FhirgateConfig = { ...file, host, gateway: { ...file.gateway, path: prefix }, metrics: values.metrics === true ? true : file.metrics, publicUrl, apiKeys: apiKeysOf(io, file) };
  const logger = createLogger({ level: logLevelOf(io, config), format: logFormatOf(io, config), stdout: io.stdout, stderr: io.stderr });
  const tracer = await userTracer(io.cwd);
  if (tracer !== undefined) logger.info('tracing: spans go to the OpenTelemetry SDK registered in this process', { tracer: 'fhirgate' });
  const where = { port, host, prefix, logger, proxy: proxyFromEnv(io.env), tracer };
  return workers === undefined ? serveHere(config, where, io) : serveWorkers(config, { workers, reusePort: reusePort ?? 'auto' }, where, io);
}

/** `stopTimeoutMs` when the file sets none: serveCluster's own default, for one process too. */
const DEFAULT_STOP_TIMEOUT_MS = 30_000;

interface Where {
  readonly port: number;
  readonly host: string;
  readonly prefix: string;
  readonly logger: Logger;
  /** The outbound proxy of HTTPS_PROXY, HTTP_PROXY and NO_PROXY. */
  readonly proxy: ProxyOptions | undefined;
  /** The user's OpenTelemetry tracer (see `userTracer`), or `undefined`: no spans. */
  readonly tracer: TracerLike | undefined;
}

/** One process: build, listen, wait for the signal, close. */
async function serveHere(config: FhirgateConfig, { port, host, prefix, logger, proxy, tracer }: Where, io: CliIO): Promise<number> {
  const { app, shared, unwatch } = await buildApp(config, { logger, proxy, tracer });
  let server;
  try {
    server = await app.listen(port, host);
  } catch (error) {
    unwatch();
    await app.close();
    await shared?.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw configError('port', `${port} on ${host} is in use; pick another with --port or PORT`);
    throw error;
  }
  logServing(logger, config, host, (server.address() as AddressInfo).port, prefix, {});
  await untilStopped(io.signal);
  const stopTimeoutMs = config.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<true>((resolve) => (timer = setTimeout(() => resolve(true), stopTimeoutMs)));
  const timedOut = await Promise.race([app.close().then(() => false), late]);
  clearTimeout(timer);
  unwatch();
  await shared?.close();
  if (timedOut) {
    logger.error('did not stop in time', { stop_timeout_ms: stopTimeoutMs });
    return 1;
  }
  logger.info('stopped', {});
  return 0;
}

/**
 * Worker processes through `serveCluster`: this same command runs again in every worker (that is how
 * `node:cluster` works), where it builds the app from the same config and listens on the shared port.
 * The primary owns SIGTERM/SIGINT/SIGHUP from then on: it drains the workers and exits.
 */
async function serveWorkers(config: FhirgateConfig, { workers, reusePort }: { workers: 'auto' | number; reusePort: 'auto' | boolean }, { port, host, prefix, logger, proxy, tracer }: Where, io: CliIO): Promise<number> {
  let role;
  try {
    const stopTimeoutMs = config.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
    role = await serveCluster(async () => (await buildApp(config, { logger, proxy, tracer })).app, { workers, port, host, logger, stopTimeoutMs, reusePort });
  } catch (error) {
    if (((error as Error).cause as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE') throw configError('port', `${port} on ${host} is in use; pick another with --port or PORT`);
    throw error;
  }
  if (role.role === 'primary') logServing(logger, config, host, role.port, prefix, { workers: role.workers.map((w) => w.pid) });
  await untilStopped(io.signal);
  if (role.role === 'primary') await role.close();
  return 0;
}

/** Says what is served: where, which components under which prefixes, which sources by name, whether API keys are asked for (never a key or a secret). */
function logServing(logger: Logger, config: FhirgateConfig, host: string, port: number, prefix: string, extra: Record<string, unknown>): void {
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  logger.info('serving', {
    url: origin,
    gateway: `${origin}${prefix}`,
    docs: `${origin}/docs`,
    sources: [...config.sources.keys()],
    serves: servedPrefixes(config),
    host: hostPaths(config),
    apiKeys: (config.apiKeys?.length ?? 0) > 0 ? 'required' : 'off',
    ...(config.store === undefined ? {} : { store: 'redis' }),
    ...extra,
  });
}

