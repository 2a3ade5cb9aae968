/**
 * Which source `fhirgate export` exports from: a connection string given as the argument, one
 * `--source`, or one source of the config file picked with `--source-name`.
 * @module
 */
import { nearestName } from '../lib/nearest-name.js';
import type { CliIO, OptionValues } from './command.js';
import { UsageError } from './command.js';
import { configError } from './config/checks.js';
import { expandEnv } from './config/expand-env.js';
import { checkSource, checkSourceName } from './config/validate-config.js';
import { settingsOf } from './settings.js';

/**
 * The source to export from, checked: its name, its connection string, and the config file's
 * `gateway.timeoutSeconds` when a file was given.
 */
export interface ExportSource {
  readonly name: string;
  readonly connectionString: string;
  readonly timeoutSeconds: number | undefined;
}

/**
 * Picks and checks the source. A bad connection string is `ERR_CONFIG` naming where it came from
 * (`<connection-string>: …`, `--source ehr: …`, `sources.ehr: …`), never its value; no source, or
 * several without `--source-name`, is a usage mistake.
 */
export async function exportSource(values: OptionValues, io: CliIO): Promise<ExportSource> {
  const argument = values['connection-string'] as string | undefined;
  const picked = values['source-name'] as string | undefined;
  if (argument !== undefined) {
    if (values.config !== undefined || values.source !== undefined || picked !== undefined) {
      throw new UsageError('give either a <connection-string> or --source / --config, not both');
    }
    return { name: 'source', connectionString: checkSource(expandEnv(argument, '<connection-string>', io.env), '<connection-string>'), timeoutSeconds: undefined };
  }
  const config = await settingsOf(values, io);
  const names = [...config.sources.keys()];
  if (names.length === 0) throw new UsageError('export needs a source: a <connection-string>, --source name=fhir://…, or --config with --source-name');
  let name = names[0]!;
  if (picked !== undefined) {
    name = checkSourceName(picked, '--source-name');
    if (!config.sources.has(name)) {
      const near = nearestName(name, names);
      throw configError('--source-name', `${near === undefined ? 'no source has that name' : `no source is named ${JSON.stringify(name)} (did you mean ${near}?)`}; sources: ${names.join(', ')}`);
    }
  } else if (names.length > 1) {
    throw new UsageError(`there are ${names.length} sources (${names.join(', ')}); pick one with --source-name`);
  }
  return { name, connectionString: config.sources.get(name)!, timeoutSeconds: config.gateway.timeoutSeconds };
}
