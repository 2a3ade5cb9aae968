/**
 * `fhirgate check`: for every configured source, fetch a token, read the CapabilityStatement and make
 * one authenticated read, and print a table of what works.
 * @module
 */
import { isResourceType, type ResourceType } from '../fhir/index.js';
import { printable } from '../lib/printable.js';
import type { CliIO, Command, OptionValues } from './command.js';
import { UsageError } from './command.js';
import { notAResourceType, optionalPositive } from './config/checks.js';
import { CONFIG_HELP } from './config/config-help.js';
import { settingsOf, SOURCE_OPTIONS } from './settings.js';
import { AgentPool } from '../http/agent-pool.js';
import { proxyFromEnv } from './proxy-env.js';
import { checkOneSource, type SourceCheck, type StepResult } from './source-check.js';

/** The `check` command. Exit code 0 when every source answered, 1 otherwise. */
export const CHECK_COMMAND: Command = {
  name: 'check',
  summary: 'Fetch a token from every source, read its CapabilityStatement and one resource with the token; print what works',
  usage: 'fhirgate check (--config <file> | --source <name=fhir://…>…) [--read-type <Type>] [--json] [--timeout <seconds>]',
  options: {
    ...SOURCE_OPTIONS,
    'read-type': { type: 'string', value: 'Type', description: 'The resource type of the authenticated read, GET [base]/<Type>?_count=1&_elements=id. Default Patient' },
    json: { type: 'boolean', description: 'Print the results as JSON instead of a table' },
    timeout: { type: 'string', value: 'seconds', description: 'Time allowed per source and step (a connection string\'s timeout wins). Default 10' },
  },
  details: [
    'Steps per source: TOKEN (when it has auth), METADATA (GET [base]/metadata, often public), READ (a search with the',
    'token: what proves the credentials; a 401 or 403 fails the source with the server\'s words).',
    'Exit code: 0 when every source gave a token (if it has auth), a CapabilityStatement and a Bundle, 1 when one did',
    'not or the config file is wrong, 2 a mistake on the command line (an unknown option, a value that does not fit).',
    '',
    ...CONFIG_HELP,
  ],
  run: check,
};

async function check(values: OptionValues, io: CliIO): Promise<number> {
  const config = await settingsOf(values, io);
  if (config.sources.size === 0) throw new UsageError('check needs at least one source: --config with "sources", or --source name=fhir://…');
  const seconds = values.timeout === undefined ? 10 : optionalPositive(Number(values.timeout), '--timeout')!;
  const readType = readTypeOf(values['read-type']);
  const proxy = proxyFromEnv(io.env);
  const pool = new AgentPool(proxy === undefined ? {} : { proxy });
  const rows = await Promise.all([...config.sources].map(([name, cs]) => checkOneSource(name, cs, { timeoutMs: seconds * 1000, readType, pool }))).finally(() => pool.close());
  io.stdout.write(values.json === true ? `${printable(JSON.stringify(rows, null, 2), { multiline: true })}\n` : table(rows));
  return rows.every(works) ? 0 : 1;
}

/** `--read-type`, default Patient. */
function readTypeOf(value: unknown): ResourceType {
  if (value === undefined) return 'Patient';
  if (isResourceType(value)) return value;
  throw notAResourceType('--read-type', String(value));
}

function works(row: SourceCheck): boolean {
  return (row.token?.ok ?? true) && row.metadata.ok && row.read.ok;
}

function cell(step: StepResult | undefined): string {
  if (step === undefined) return '-';
  // The detail may quote the server (an OAuth error_description, an OperationOutcome).
  return `${step.ok ? 'ok' : 'FAILED'}: ${printable(step.detail)}`;
}

/** A plain-text table, one row per source, columns padded. */
function table(rows: readonly SourceCheck[]): string {
  const lines = [
    ['SOURCE', 'BASE URL', 'AUTH', 'TOKEN', 'METADATA', 'READ'],
    ...rows.map((r) => [r.source, r.base, r.auth, cell(r.token), cell(r.metadata), cell(r.read)]),
  ];
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  const text = lines.map((l) => l.map((c, i) => (i === l.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
  const failing = rows.filter((r) => !works(r)).length;
  return `${text}\n\n${failing === 0 ? `all ${rows.length} source(s) work` : `${failing} of ${rows.length} source(s) failed`}\n`;
}
