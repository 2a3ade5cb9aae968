/**
 * `fhirgate serve`: a gateway host from a config file or from `--source` options, without code.
 * @module
 */
import type { AddressInfo } from 'node:net';
import { createJSONLogger } from '../host/index.js';
import { buildApp } from './build-app.js';
import type { CliIO, Command, OptionValues } from './command.js';
import { UsageError } from './command.js';
import { configError } from './config/checks.js';
import { CONFIG_HELP } from './config/config-help.js';
import { logLevelOf, portOf, prefixOf, settingsOf, SOURCE_OPTIONS } from './settings.js';

/**
 * The `serve` command: builds the app, listens, and runs until SIGINT/SIGTERM, then closes cleanly
 * (requests in flight finish).
 *
 * @example
 * ```ts
 * await SERVE_COMMAND.run({ source: ['ehr=fhir://localhost:8080/fhir/'], port: '0' }, io);
 * ```
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
  },
  details: [
    'Environment: PORT (the port), LOG_LEVEL (debug, info, warn, error; default info), FHIRGATE_API_KEYS',
    '(comma-separated API keys, when the file sets no apiKeys). Logs are JSON lines, one per request at info.',
    '',
    'Examples:',
    '  fhirgate serve --config fhirgate.json',
    '  fhirgate serve --source "ehr=fhir://ehr.example.org/r4/?client_id=app&client_secret=$EHR_SECRET&token_url=https://ehr.example.org/token" \\',
    '                 --source lab=fhir://localhost:8080/fhir/ --port 8000',
    '',
    ...CONFIG_HELP,
  ],
  run: serve,
};

async function serve(values: OptionValues, io: CliIO): Promise<number> {
  const config = await settingsOf(values, io);
  if (config.sources.size === 0) throw new UsageError('serve needs at least one source: --config with "sources", or --source name=fhir://…');
  const port = portOf(values, io, config);
  const prefix = prefixOf(values, config);
  const host = (values.host as string | undefined) ?? config.host ?? '127.0.0.1';
  const logger = createJSONLogger({ level: logLevelOf(io, config), stdout: io.stdout, stderr: io.stderr });
  const { app } = await buildApp({ ...config, gateway: { ...config.gateway, path: prefix } }, { logger });
  let server;
  try {
    server = await app.listen(port, host);
  } catch (error) {
    await app.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw configError('port', `${port} on ${host} is in use; pick another with --port or PORT`);
    throw error;
  }
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;
  logger.info('serving', { gateway: `${origin}${prefix}`, docs: `${origin}/docs`, sources: [...config.sources.keys()] });
  await new Promise<void>((resolve) => {
    if (io.signal === undefined) return;
    if (io.signal.aborted) resolve();
    else io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await app.close();
  logger.info('stopped', {});
  return 0;
}
