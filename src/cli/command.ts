/**
 * What a `fhirgate` command is: its name, its one-line summary, its options (the `node:util`
 * `parseArgs` shape plus help text) and what it runs. A new command is one more object of this shape in
 * {@link COMMANDS}; its `--help` is written from the same object.
 * @module
 */

/**
 * Where a command reads and writes: the process's streams and environment in production, captured ones
 * in tests.
 *
 * @example
 * ```ts
 * const io: CliIO = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
 * ```
 */
export interface CliIO {
  /** `isTTY` true: a terminal, where `serve` writes readable log lines instead of JSON. */
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  /** `isTTY` true: a terminal, where a command may redraw a progress line. */
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The directory relative paths on the command line are resolved against. */
  readonly cwd: string;
  /** Aborted when the process is asked to stop (SIGINT, SIGTERM); long-running commands stop on it. */
  readonly signal?: AbortSignal;
}

/**
 * One command-line option: what `parseArgs` needs, plus what `--help` prints.
 *
 * @example
 * ```ts
 * const port: OptionSpec = { type: 'string', value: 'n', description: 'Port to listen on (PORT works too). Default 8000.' };
 * ```
 */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** May be given more than once (values collected in order). */
  readonly multiple?: boolean;
  readonly short?: string;
  /** The placeholder shown in help (`--port <n>`); string options only. */
  readonly value?: string;
  readonly description: string;
}

/**
 * A command's argument (not an option): its name, as help shows it (`<connection-string>`) and as its
 * value is keyed in the parsed values.
 *
 * @example
 * ```ts
 * const argument: ArgumentSpec = { name: 'connection-string', description: 'The fhir:// connection string of the server' };
 * ```
 */
export interface ArgumentSpec {
  readonly name: string;
  readonly description: string;
}

/**
 * The parsed option values of a command, by option name.
 *
 * @example
 * ```ts
 * const values: OptionValues = { config: 'fhirgate.json', source: ['lab=fhir://localhost:8080/fhir/'] };
 * ```
 */
export type OptionValues = Readonly<Record<string, string | boolean | string[] | boolean[] | undefined>>;

/**
 * A command of the `fhirgate` CLI.
 *
 * @example
 * ```ts
 * const hello: Command = {
 *   name: 'hello',
 *   summary: 'Says hello',
 *   usage: 'fhirgate hello [--name <who>]',
 *   options: { name: { type: 'string', value: 'who', description: 'Who to greet' } },
 *   run: async (values, io) => { io.stdout.write(`hello ${values.name ?? 'world'}\n`); return 0; },
 * };
 * ```
 */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  /** Lines printed under the options in `--help` (examples, precedence rules). */
  readonly details?: readonly string[];
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** The one argument the command takes besides its options, if any: its value is `values[name]`. */
  readonly argument?: ArgumentSpec;
  /** Runs the command; resolves to the exit code. Long-running commands resolve when they stop. */
  run(values: OptionValues, io: CliIO): Promise<number>;
}

/**
 * A mistake on the command line (unknown option, missing value): printed with a pointer to `--help`,
 * exit code 2.
 *
 * @example
 * ```ts
 * throw new UsageError('serve: give --config or at least one --source');
 * ```
 */
export class UsageError extends Error {
  override get name(): string {
    return 'UsageError';
  }
}
