/**
 * The `fhirgate` program: picks the command, parses its options (see `parseOptions`), prints help, and
 * turns errors into a message and an exit code (never a stack trace, never an argument quoted).
 * @module
 */
import { isFhirgateError } from '../errors.js';
import { nearestName } from '../lib/nearest-name.js';
import { printable } from '../lib/printable.js';
import { VERSION } from '../version.js';
import { CHECK_COMMAND } from './check-command.js';
import type { CliIO, Command } from './command.js';
import { UsageError } from './command.js';
import { EXPORT_COMMAND } from './export-command.js';
import { commandHelp, programHelp } from './help.js';
import { parseOptions } from './parse-options.js';
import { SANDBOX_COMMAND } from './sandbox-command.js';
import { SERVE_COMMAND } from './serve-command.js';

/** Every command, in the order `--help` lists them. A new command is one more entry. */
export const COMMANDS: readonly Command[] = Object.freeze([SERVE_COMMAND, CHECK_COMMAND, EXPORT_COMMAND, SANDBOX_COMMAND]);

/**
 * Runs `fhirgate` with `argv` (without the node and script paths) and resolves to the exit code of
 * `EXIT_CODES` (help.ts): 0 done, 1 failed, 2 a mistake on the command line.
 */
export async function main(argv: readonly string[], io: CliIO, commands: readonly Command[] = COMMANDS): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    io.stderr.write(programHelp(commands, VERSION));
    return 2;
  }
  if (first === '-h' || first === '--help' || first === 'help') {
    const named = commands.find((c) => c.name === rest[0]);
    io.stdout.write(named === undefined ? programHelp(commands, VERSION) : commandHelp(named));
    return 0;
  }
  if (first === '-v' || first === '--version') {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const command = commands.find((c) => c.name === first);
  if (command === undefined) {
    // The word is quoted only when it is a near miss of a command: it may be a connection string pasted first.
    const near = nearestName(first, commands.map((c) => c.name));
    const what = near === undefined ? 'the first argument is not a command' : `unknown command ${JSON.stringify(first)} (did you mean ${near}?)`;
    io.stderr.write(`fhirgate: ${what}; commands: ${commands.map((c) => c.name).join(', ')}. See fhirgate --help\n`);
    return 2;
  }
  try {
    const values = parseOptions(command, rest);
    if (values.help === true) {
      io.stdout.write(commandHelp(command));
      return 0;
    }
    return await command.run(values, io);
  } catch (error) {
    return report(command, error, io);
  }
}

/**
 * An `ERR_CONFIG` about something typed on the command line: its path is an option (`--port`,
 * `--source ehr`) or the command's argument (`<connection-string>`), not a config file's setting
 * (`sources.ehr`) or an environment variable (`PORT`).
 */
function aboutTheCommandLine(error: unknown): error is Error {
  return isFhirgateError(error, 'ERR_CONFIG') && /^(?:--|<)/.test(error.message);
}

function report(command: Command, error: unknown, io: CliIO): number {
  if (error instanceof UsageError || aboutTheCommandLine(error)) {
    io.stderr.write(`fhirgate ${command.name}: ${error.message}\nSee fhirgate ${command.name} --help\n`);
    return 2;
  }
  const message = isFhirgateError(error) ? error.message : error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : 'failed';
  // An error may quote an upstream server (an OperationOutcome's diagnostics): no control characters reach the terminal.
  io.stderr.write(`fhirgate ${command.name}: ${printable(message)}\n`);
  return 1;
}
