/**
 * What a `fhirgate` command is: its name, its one-line summary, its options (the `node:util`
 * `parseArgs` shape plus help text) and what it runs. A new command is one more object of this shape in
 * {@link COMMANDS}; its `--help` is written from the same object.
 * @module
 */

/**
 * Where a command reads and writes: the process's streams and environment in production, captured ones
 * in tests.
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

/** One command-line option: what `parseArgs` needs, plus what `--help` prints. */
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
 */
export interface ArgumentSpec {
  readonly name: string;
  readonly description: string;
}

/** The parsed option values of a command, by option name. */
export type OptionValues = Readonly<Record<string, string | boolean | string[] | boolean[] | undefined>>;

/** A command of the `fhirgate` CLI. */
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
 */
export class UsageError extends Error {
  override get name(): string {
    return 'UsageError';
  }
}
