/**
 * The settings of `serve` and `check`: the config file (if any) with the command-line options laid over
 * it. Precedence, highest first: the option, the environment (`PORT`, `LOG_LEVEL`), the file, the default.
 * @module
 */
import type { CliIO, OptionSpec, OptionValues } from './command.js';
import { UsageError } from './command.js';
import type { FhirgateConfig } from './config/config-types.js';
import { loadConfig } from './config/load-config.js';
import { checkSource, checkSourceName, validateConfig } from './config/validate-config.js';
import { configError, optionalPort, optionalPrefix } from './config/checks.js';
import { expandEnv } from './config/expand-env.js';

/** The options `serve` and `check` share: where the sources come from. */
export const SOURCE_OPTIONS: Readonly<Record<string, OptionSpec>> = Object.freeze({
  config: { type: 'string', short: 'c', value: 'file', description: 'The config file (JSON; ${ENV_VAR} references are expanded)' },
  source: {
    type: 'string',
    multiple: true,
    value: 'name=fhir://…',
    description: 'A source: a name and its connection string; added to (or replacing) the config file\'s. Write secrets as \'${VAR}\' in single quotes: fhirgate expands and percent-encodes them',
  },
});

/** The port `serve` listens on when neither `--port`, `PORT` nor the file says. */
export const DEFAULT_PORT = 8000;

/** Reads the config file named by `--config` (or starts from an empty one) and lays `--source` over it. */
export async function settingsOf(values: OptionValues, io: CliIO): Promise<FhirgateConfig> {
  const file = values.config as string | undefined;
  const base = file === undefined ? validateConfig({}, { dir: io.cwd, env: io.env }) : await loadConfig(file, { cwd: io.cwd, env: io.env });
  const flags = (values.source as string[] | undefined) ?? [];
  if (flags.length === 0) return base;
  const sources = new Map(base.sources);
  for (const flag of flags) {
    const at = flag.indexOf('=');
    if (at <= 0) throw new UsageError('--source takes name=fhir://… (a name, "=", a connection string)');
    const name = checkSourceName(flag.slice(0, at), '--source');
    sources.set(name, checkSource(expandEnv(flag.slice(at + 1), `--source ${name}`, io.env), `--source ${name}`));
  }
  return Object.freeze({ ...base, sources });
}

/** The port: `--port`, else `PORT`, else the file's `port`, else 8000. */
export function portOf(values: OptionValues, io: CliIO, config: FhirgateConfig): number {
  return optionalPort(values.port, '--port') ?? optionalPort(io.env.PORT, 'PORT') ?? config.port ?? DEFAULT_PORT;
}

/** The gateway prefix: `--prefix`, else the file's `gateway.path`, else `/fhir`. */
export function prefixOf(values: OptionValues, config: FhirgateConfig): string {
  return optionalPrefix(values.prefix, '--prefix') ?? config.gateway.path ?? '/fhir';
}

/**
 * The log format: `LOG_FORMAT`, else the file's `logFormat`, else pretty when stdout is a terminal and JSON
 * lines otherwise (a pipe, a file, a log collector).
 */
export function logFormatOf(io: CliIO, config: FhirgateConfig): 'json' | 'pretty' {
  const env = io.env.LOG_FORMAT;
  if (env === undefined || env === '') return config.logFormat ?? (io.stdout.isTTY === true ? 'pretty' : 'json');
  if (env !== 'json' && env !== 'pretty') throw configError('LOG_FORMAT', 'must be one of json, pretty');
  return env;
}

/** The log level: `LOG_LEVEL`, else the file's `logLevel`, else `info`. */
export function logLevelOf(io: CliIO, config: FhirgateConfig): NonNullable<FhirgateConfig['logLevel']> {
  const env = io.env.LOG_LEVEL;
  if (env === undefined || env === '') return config.logLevel ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(env)) throw configError('LOG_LEVEL', 'must be one of debug, info, warn, error');
  return env as NonNullable<FhirgateConfig['logLevel']>;
}


/**
 * The API keys: the file's `apiKeys`, else `FHIRGATE_API_KEYS` (comma-separated, blanks dropped), else
 * none (the check is off). The command reads the environment; `createServiceAPI` never does.
 */
export function apiKeysOf(io: CliIO, config: FhirgateConfig): readonly string[] {
  return config.apiKeys ?? (io.env.FHIRGATE_API_KEYS ?? '').split(',').map((k) => k.trim()).filter((k) => k !== '');
}
