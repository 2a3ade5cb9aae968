/**
 * `fhirgate export`: a FHIR Bulk Data export from one source into one NDJSON file per resource type.
 * @module
 */
import { mkdir, readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { FhirgateError, isFhirgateError } from '../errors.js';
import { LocalEventDispatcher } from '../events/index.js';
import type { ResourceType } from '../fhir/index.js';
import { isR4OrR4BResourceType, type R4OnlyResourceType } from '../fhir/is-resource-type.js';
import { checkBulkOptions } from '../gateway/bulk/index.js';
import { AsyncFHIRGateway, type BulkItem, type BulkLevel } from '../gateway/index.js';
import { addSources } from './build-app.js';
import { proxyFromEnv } from './proxy-env.js';
import type { CliIO, Command, OptionValues } from './command.js';
import { configError, notAResourceType, optionalPositive } from './config/checks.js';
import { CONFIG_HELP } from './config/config-help.js';
import { exportSource } from './export-source.js';
import { ExportProgress, exportSummary } from './export-progress.js';
import { NDJSONFiles } from './ndjson-files.js';
import { SOURCE_OPTIONS } from './settings.js';

/**
 * The `export` command. Exit code 0 when the export finished, 1 when it failed (nothing is kept), 2 a
 * usage mistake, 130 cancelled by SIGINT/SIGTERM (the job is deleted on the server).
 */
export const EXPORT_COMMAND: Command = {
  name: 'export',
  summary: 'Run a FHIR Bulk Data export ($export) on one source into one NDJSON file per resource type',
  usage: 'fhirgate export (<connection-string> | --source <name=fhir://…> | --config <file> [--source-name <name>]) [options]',
  argument: { name: 'connection-string', description: 'The fhir:// connection string of the server to export from (or use --source / --config)' },
  options: {
    ...SOURCE_OPTIONS,
    'source-name': { type: 'string', value: 'name', description: 'Which source of the config file (or of the --source options) to export; needed when there are several' },
    type: { type: 'string', multiple: true, value: 'Type,Type…', description: '_type: only these resource types, comma-separated. Default: every type the server exports' },
    since: { type: 'string', value: 'date|instant', description: '_since: only resources changed after it (2024-01-01 is the start of that day, UTC)' },
    level: { type: 'string', value: 'system|patient|group:<id>', description: 'Where the export starts: [base]/$export, [base]/Patient/$export or [base]/Group/<id>/$export. Default system' },
    out: { type: 'string', short: 'o', value: 'folder', description: 'Where the files go (created if missing; must hold no .ndjson file yet). Default ./export' },
    deadline: { type: 'string', value: 'seconds', description: 'Time the server may take to prepare the export; then it is cancelled. Default 3600' },
  },
  details: [
    'Files: <Type>.ndjson per resource type; the manifest\'s error files go to OperationOutcome.error.ndjson and,',
    'with --since, its deleted files to Bundle.deleted.ndjson. Lines are written as they arrive (never the whole',
    'export in memory) under a .part name, renamed when the export ends; a failed or cancelled export keeps none.',
    '',
    'On a terminal, a progress line on stderr shows files, resources, bytes, elapsed time and the server\'s progress;',
    'the summary (one row per file, then the totals) goes to stdout. Ctrl-C cancels: the job is deleted on the server.',
    'Exit code: 0 done, 1 failed (the error\'s message, never a secret), 2 a mistake on the command line (an',
    'unknown option, a missing value, or a value that does not fit: --type Pateint, a used --out), 130 cancelled.',
    '',
    'Examples:',
    '  fhirgate export "fhir://ehr.example.org/r4/?client_id=app&client_secret_path=key.pem&use_jwt_assertion=true" \\',
    '                  --type Patient,Observation --since 2024-01-01 --out ./export/',
    '  fhirgate export --config fhirgate.json --source-name ehr --level group:diabetes-cohort --out ./cohort/',
    '',
    'With --config, export reads "sources" and "gateway.timeoutSeconds"; the other settings are for serve.',
    ...CONFIG_HELP,
  ],
  run: runExport,
};

async function runExport(values: OptionValues, io: CliIO): Promise<number> {
  const { name, connectionString, timeoutSeconds } = await exportSource(values, io);
  const options = exportOptions(values);
  const out = resolve(io.cwd, (values.out as string | undefined) ?? 'export');
  await prepareFolder(out);
  const proxy = proxyFromEnv(io.env);
  const gateway = new AsyncFHIRGateway({ ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }), ...(proxy === undefined ? {} : { proxy }) });
  const files = new NDJSONFiles(out);
  const progress = new ExportProgress(io.stderr);
  try {
    addSources(gateway, new Map([[name, connectionString]]));
    const events = new LocalEventDispatcher();
    events.register('fhir.bulk.kickoff', () => progress.server('waiting for the server'));
    events.register('fhir.bulk.progress', ([, payload]) => progress.server(`server: ${typeof payload.progress === 'string' ? payload.progress : 'in progress'}`));
    gateway.useEvents(events);
    let downloading = false;
    for await (const item of gateway.bulkExport(name, { ...options, ...(io.signal === undefined ? {} : { signal: io.signal }) })) {
      if (!downloading) progress.server('downloading');
      downloading = true;
      await files.write(fileName(item), item.resource);
      progress.counts(files.counts);
    }
    await files.commit();
  } catch (error) {
    await files.discard();
    progress.end();
    if (io.signal?.aborted === true && isFhirgateError(error, 'ERR_ABORTED')) {
      io.stderr.write('fhirgate export: cancelled; the export job was deleted on the server and no file was kept\n');
      return 130;
    }
    throw error;
  } finally {
    await gateway.close();
  }
  progress.end();
  io.stdout.write(exportSummary(files.counts, out, progress.elapsed));
  return 0;
}

/** `--type`, `--since`, `--level` and `--deadline`, checked as `bulkExport` checks them, each error naming its option. */
function exportOptions(values: OptionValues): { types: (ResourceType | R4OnlyResourceType)[]; since?: string; level: BulkLevel; deadlineSeconds?: number } {
  const types = ((values.type as string[] | undefined) ?? []).flatMap((t) => t.split(',')).map((t) => t.trim()).filter((t) => t !== '');
  const unknown = types.findIndex((t) => !isR4OrR4BResourceType(t));
  if (unknown !== -1) throw notAResourceType('--type', types[unknown]!, { position: unknown + 1, r4Only: true });
  const since = values.since as string | undefined;
  if (since !== undefined) check(() => checkBulkOptions({ since }), '--since', 'must be a FHIR date or instant such as 2024-01-01 or 2024-01-01T00:00:00Z');
  const text = (values.level as string | undefined) ?? 'system';
  const level: BulkLevel = text === 'system' || text === 'patient' ? text : { group: text.startsWith('group:') ? text.slice(6) : '' };
  check(() => checkBulkOptions({ level }), '--level', 'must be system, patient or group:<id> (a FHIR id: letters, digits, - and ., up to 64)');
  const deadline = values.deadline === undefined ? undefined : optionalPositive(Number(values.deadline), '--deadline');
  return { types: types as (ResourceType | R4OnlyResourceType)[], level, ...(since === undefined ? {} : { since }), ...(deadline === undefined ? {} : { deadlineSeconds: deadline }) };
}

function check(run: () => unknown, option: string, problem: string): void {
  try {
    run();
  } catch {
    throw configError(option, problem);
  }
}

/** Creates the folder; refuses one that holds NDJSON files already (an earlier export would be mixed in). */
async function prepareFolder(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    if ((await readdir(dir)).some((f) => f.endsWith('.ndjson') || f.endsWith('.ndjson.part'))) throw configError('--out', `${dir} already holds .ndjson files; give an empty or a new folder`);
  } catch (error) {
    if (isFhirgateError(error)) throw error;
    throw configError('--out', `${dir} cannot be used: ${(error as NodeJS.ErrnoException).code ?? 'failed'}`);
  }
}

/** `<Type>.ndjson` for output, `<Type>.error.ndjson` / `<Type>.deleted.ndjson` for the other lists. */
function fileName(item: BulkItem): string {
  // The type names a file: only a real resource type may (a server's "../x" must not).
  if (!isR4OrR4BResourceType(item.type)) throw new FhirgateError('ERR_BULK_FILE', `a line of an export file has a resourceType that is not a FHIR R4 or R4B resource type (${JSON.stringify(item.type.slice(0, 40))})`);
  return item.kind === 'output' ? `${item.type}.ndjson` : `${item.type}.${item.kind}.ndjson`;
}
