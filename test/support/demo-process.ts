/**
 * Runs `examples/demo.ts` as `npm start` does, in a child process with its own TMPDIR, and reads what
 * it prints: the origin, the key file, and the `curl` commands.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOADER, ROOT, treeFile } from './code-tree.js';

export { ROOT };
/** A safety net only: the demo is normally up in a few seconds. */
const START_TIMEOUT_MS = 90_000;

export interface DemoProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** The child's TMPDIR (the key file is made in it). */
  readonly tmp: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the child has exited. */
  readonly exited: Promise<number | null>;
}

/**
 * Spawns the demo with `PORT` (and a fresh TMPDIR); `env` adds variables (such as `LOG_LEVEL`). With
 * `npmStart` it runs the exact command of `npm start` (`node --import tsx examples/demo.ts`); otherwise the
 * demo in the tests' running form (see code-tree.ts), which starts without tsx's half second of CPU.
 */
export function spawnDemo(port: string, extra: Record<string, string> = {}, npmStart = false): DemoProcess {
  const tmp = mkdtempSync(join(tmpdir(), 'fhirgate-demo-test-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: port, TMPDIR: tmp };
  delete env.FHIRGATE_API_KEYS;
  delete env.LOG_LEVEL;
  Object.assign(env, extra);
  const command = npmStart ? ['--import', 'tsx', 'examples/demo.ts'] : [...LOADER, treeFile('examples/demo')];
  const child = spawn(process.execPath, command, { cwd: ROOT, env });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => void (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (err += chunk));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, tmp, stdout: () => out, stderr: () => err, exited };
}

/** Waits until the child has printed `text` on stdout; rejects if it exits first. */
export async function waitForOutput(demo: DemoProcess, text: string): Promise<string> {
  const deadline = AbortSignal.timeout(START_TIMEOUT_MS);
  while (!demo.stdout().includes(text)) {
    if (demo.child.exitCode !== null || demo.child.signalCode !== null) {
      throw new Error(`the demo exited (${demo.child.exitCode ?? demo.child.signalCode}) before printing ${JSON.stringify(text)}:\n${demo.stdout()}\n${demo.stderr()}`);
    }
    if (deadline.aborted) throw new Error(`no ${JSON.stringify(text)} within ${START_TIMEOUT_MS} ms:\n${demo.stdout()}\n${demo.stderr()}`);
    await Promise.race([once(demo.child.stdout, 'data'), demo.exited, once(deadline, 'abort')]);
  }
  return demo.stdout();
}

/** Waits until the banner's last line is printed; rejects if the child exits first. */
export function waitForBanner(demo: DemoProcess): Promise<string> {
  return waitForOutput(demo, 'Ctrl-C stops.');
}

/** Splits a command line into words the way a POSIX shell does for plain and single-quoted words. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  const pattern = /\s*(?:'([^']*)'|(\S+))/gy;
  for (let m = pattern.exec(line); m !== null && m[0] !== ''; m = pattern.exec(line)) words.push(m[1] ?? m[2] ?? '');
  return words;
}

/** A `curl -s [-X M] [-H 'k: v']… [--data-binary 'b'] 'url'` command as fetch arguments. */
export function curlToFetch(line: string): { url: string; init: RequestInit } {
  const words = shellWords(line.trim());
  if (words[0] !== 'curl') throw new Error(`not a curl command: ${line}`);
  const headers: Record<string, string> = {};
  let method: string | undefined;
  let body: string | undefined;
  let url: string | undefined;
  for (let i = 1; i < words.length; i += 1) {
    const word = words[i] as string;
    if (word === '-s') continue;
    if (word === '-X') method = words[++i];
    else if (word === '-H') {
      const header = words[++i] as string;
      const colon = header.indexOf(':');
      headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
    } else if (word === '--data-binary') body = words[++i];
    else if (url === undefined) url = word;
    else throw new Error(`unexpected word ${word} in ${line}`);
  }
  if (url === undefined) throw new Error(`no URL in ${line}`);
  return { url, init: { method: method ?? (body === undefined ? 'GET' : 'POST'), headers, ...(body === undefined ? {} : { body }) } };
}
