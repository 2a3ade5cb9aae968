/**
 * Runs the `fhirgate` CLI as a real child process (from the TypeScript sources, as bin/fhirgate.js runs
 * it from dist/), and reads what it prints.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { main } from '../../src/cli/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { helperScript, LOADER, ROOT } from './code-tree.js';

export { ROOT };
const ENTRY = helperScript(import.meta.url, './cli-entry');
/** A safety net only: the CLI is normally up in about a second. */
const WAIT_MS = 240_000; // several test files share the CPU, and a loaded machine starts a process slowly

export interface CliRun {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<number | null>;
}

/** Starts the CLI with `args`; `env` is laid over a copy of this process's environment without PORT and API keys. */
export function startCli(t: TestContext, args: readonly string[], env: Record<string, string> = {}, cwd = ROOT): CliRun {
  return startNode(t, [...LOADER, ENTRY, ...args], env, cwd);
}

/** Starts `node` with `argv` (a script and its arguments), in the environment `startCli` gives the CLI (no proxy variables but those of `env`). */
export function startNode(t: TestContext, argv: readonly string[], env: Record<string, string> = {}, cwd = ROOT): CliRun {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  const proxyVariables = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];
  for (const name of ['PORT', 'FHIRGATE_API_KEYS', 'LOG_LEVEL', ...proxyVariables]) if (!(name in env)) delete childEnv[name];
  const child = spawn(process.execPath, argv, { cwd, env: childEnv });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => void (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => void (err += c));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/**
 * Runs the CLI's `main` in this process, with captured streams: the same parsing, validation, messages
 * and exit codes as the command, without the second or so a child process spends loading the sources.
 * For commands that end on their own (help, usage and config mistakes); `runCli` and `startCli` keep
 * the real process for what depends on it (signals, serving, the bin).
 */
export async function runMain(args: readonly string[], env: Record<string, string> = {}, cwd = ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main([...args], { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env, cwd });
  return { code, stdout, stderr };
}

/** The installed command, `bin/fhirgate.js` (in a clone it runs the sources through tsx). */
export const BIN = join(ROOT, 'bin', 'fhirgate.js');

/** Starts `bin/fhirgate.js` itself, the command a user runs, with `args`, in the environment `startCli` gives. */
export function startBin(t: TestContext, args: readonly string[], env: Record<string, string> = {}, cwd = ROOT): CliRun {
  return startNode(t, [BIN, ...args], env, cwd);
}

/** Runs the CLI to its end (`bin/fhirgate.js` itself with `{ bin: true }`). */
export async function runCli(t: TestContext, args: readonly string[], env: Record<string, string> = {}, cwd = ROOT, how: { bin?: boolean } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = (how.bin === true ? startBin : startCli)(t, args, env, cwd);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/** Waits for the JSON log line `{"msg":"serving",…}` and returns it; rejects if the CLI exits first. */
export async function waitServing(run: CliRun): Promise<{ gateway: string; docs: string; sources: string[] }> {
  const deadline = AbortSignal.timeout(WAIT_MS);
  for (;;) {
    const line = run.stdout().split('\n').find((l) => l.includes('"msg":"serving"'));
    if (line !== undefined) return JSON.parse(line) as { gateway: string; docs: string; sources: string[] };
    if (run.child.exitCode !== null) throw new Error(`the CLI exited (${run.child.exitCode}):\n${run.stdout()}\n${run.stderr()}`);
    if (deadline.aborted) throw new Error(`not serving within ${WAIT_MS} ms:\n${run.stdout()}\n${run.stderr()}`);
    await Promise.race([once(run.child.stdout, 'data'), run.exited, once(deadline, 'abort')]);
  }
}

/** A fresh folder for config files and handler modules, removed after the test. */
export function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-cli-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** How many JSON log lines `{"msg":"<msg>",…}` the CLI has printed on stdout. */
export function countLines(run: CliRun, msg: string): number {
  return run.stdout().split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).length;
}

/** Resolves once the CLI has printed `n` lines `{"msg":"<msg>",…}`; rejects if it exits first. */
export async function waitForLines(run: CliRun, msg: string, n: number): Promise<void> {
  while (countLines(run, msg) < n) {
    if (run.child.exitCode !== null) throw new Error(`the CLI exited (${run.child.exitCode}):\n${run.stdout()}\n${run.stderr()}`);
    await Promise.race([once(run.child.stdout, 'data'), run.exited]);
  }
}

/** `fhirgate serve --workers <n> …extra` over a fresh sandbox source (closed after the test), once it serves. */
export async function serveSandboxWorkers(t: TestContext, workers: number, extra: readonly string[] = []): Promise<{ run: CliRun; origin: string }> {
  const sb = await startSandbox({ seed: 'a' });
  t.after(() => sb.close());
  const run = startCli(t, ['serve', '--source', `a=${sb.connectionString()}`, '--port', '0', '--workers', String(workers), ...extra]);
  return { run, origin: new URL((await waitServing(run)).gateway).origin };
}
