/**
 * Parsing a command's arguments with `node:util` `parseArgs`, and saying what is wrong without quoting
 * them: `parseArgs`'s own messages quote the offending argument, which may be a connection string with
 * its secret pasted in the wrong place. An option is named only when it is a known one or an obvious
 * typo of one; anything else is "the argument at position N".
 * @module
 */
import { parseArgs } from 'node:util';
import { nearestName } from '../lib/nearest-name.js';
import type { Command, OptionSpec, OptionValues } from './command.js';
import { UsageError } from './command.js';
import { HELP_OPTION } from './help.js';

/**
 * The option values of `command` from `args` (the arguments after the command's name), its one
 * argument keyed by its name. Any mistake is a {@link UsageError} that quotes no argument.
 */
export function parseOptions(command: Command, args: readonly string[]): OptionValues {
  const options = { ...command.options, help: HELP_OPTION };
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: command.argument !== undefined });
  } catch {
    throw new UsageError(describeMistake(command, options, args));
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new UsageError(`takes one <${command.argument!.name}>, got ${positionals.length} arguments`);
  return (positionals.length === 0 ? values : { ...values, [command.argument!.name]: positionals[0] }) as OptionValues;
}

/** The first mistake in `args`, found again on the tokens of a lenient parse (which does not throw). */
function describeMistake(command: Command, options: Readonly<Record<string, OptionSpec>>, args: readonly string[]): string {
  const { tokens } = parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    const position = `at position ${token.index + 1}`;
    if (token.kind === 'positional') {
      if (command.argument !== undefined) continue;
      const hint = /^\s*fhir:\/\//i.test(token.value) ? ': give a connection string as --source name=fhir://… or in the config file' : '';
      return `takes no argument besides its options, but the argument ${position} is not an option${hint}`;
    }
    if (token.kind !== 'option') continue;
    const spec = options[token.name];
    if (spec === undefined) return unknownOption(token.rawName, token.name, Object.keys(options), position);
    if (spec.type === 'boolean' && token.value !== undefined) return `--${token.name} takes no value (${position})`;
    if (spec.type === 'string' && (token.value === undefined || (!token.inlineValue && token.value.startsWith('-')))) {
      return `--${token.name} needs a value (${position}); for a value starting with -, write --${token.name}=<value>`;
    }
  }
  return 'the arguments cannot be read';
}

function unknownOption(rawName: string, name: string, known: readonly string[], position: string): string {
  const near = rawName.startsWith('--') ? nearestName(name, known) : undefined;
  return near === undefined ? `an unknown option ${position}` : `unknown option --${name} (${position}); did you mean --${near}?`;
}
