/**
 * The `--help` texts, written from the command table so that every option is documented where it is
 * declared.
 * @module
 */
import type { Command, OptionSpec } from './command.js';

/** The help of one command: usage, summary, every option with its description, then the details. */
export function commandHelp(command: Command): string {
  const rows = Object.entries({ ...command.options, help: HELP_OPTION }).map(([name, spec]) => [flag(name, spec), spec.description] as const);
  return [
    `Usage: ${command.usage}`,
    '',
    command.summary,
    '',
    ...(command.argument === undefined ? [] : ['Argument:', ...columns([[`<${command.argument.name}>`, command.argument.description]]), '']),
    'Options:',
    ...columns(rows),
    ...(command.details === undefined ? [] : ['', ...command.details]),
    '',
  ].join('\n');
}

/** The help of the program: the commands and how to get each one's help. */
export function programHelp(commands: readonly Command[], version: string): string {
  return [
    'Usage: fhirgate <command> [options]',
    '',
    `fhirgate ${version}: one interface to many FHIR R4 servers, served over HTTP without writing code.`,
    '',
    'Commands:',
    ...columns(commands.map((c) => [c.name, c.summary] as const)),
    '',
    'Options:',
    ...columns([['-h, --help', 'Show this help (fhirgate <command> --help: the options of a command)'], ['-v, --version', 'Print the version']]),
    '',
    'Run `fhirgate <command> --help` for every option of a command.',
    '',
    ...EXIT_CODES,
    '',
  ].join('\n');
}

/**
 * The one exit-code rule of every command, printed by `fhirgate --help` (and `docs/cli.md` says the same).
 * `export` adds 130 for a cancelled export.
 */
export const EXIT_CODES: readonly string[] = Object.freeze([
  'Exit codes: 0 done; 1 failed (a config file or environment setting, a source, or the work itself);',
  '2 a mistake on the command line: an unknown command or option, a missing value, or a value that does',
  'not fit (--port eighty, --type Pateint, an http token_url in --source). Messages name the option or',
  'setting, never its value.',
]);

/** The `--help` option every command has (added to each command's options when parsing). */
export const HELP_OPTION: OptionSpec = { type: 'boolean', short: 'h', description: 'Show this help' };

function flag(name: string, spec: OptionSpec): string {
  const short = spec.short === undefined ? '    ' : `-${spec.short}, `;
  const value = spec.type === 'string' ? ` <${spec.value ?? 'value'}>` : '';
  return `${short}--${name}${value}${spec.multiple === true ? ' (repeatable)' : ''}`;
}

function columns(rows: ReadonlyArray<readonly [string, string]>): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}
