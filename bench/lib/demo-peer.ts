/**
 * The demo (`examples/demo.ts`, what `npm start` runs) as a benchmark peer: started with PORT=0 in its
 * own process (pinned to the server core when `taskset` is there), ready once its banner is printed.
 * Its output is read and thrown away so that its audit trail never blocks it.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { coreFor } from './processes.js';

export interface DemoPeer {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  pid: number;
  /** Lines the demo printed after its banner (its audit trail). */
  auditLines(): number;
  /** Lines the demo wrote to stderr (its warning and error log), and the first few of them. */
  errorLines(): { count: number; first: string[] };
  /** The demo process's resident set size in bytes, from /proc (Linux). */
  rssBytes(): number;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export function startDemoPeer(): Promise<DemoPeer> {
  const script = fileURLToPath(new URL('../../examples/demo.ts', import.meta.url));
  const cwd = fileURLToPath(new URL('../../', import.meta.url));
  const nodeArgs = ['--import', 'tsx', script];
  const core = coreFor('server');
  // taskset execs node, so the pid is the demo's own.
  const [cmd, argv] = core === undefined ? [process.execPath, nodeArgs] : ['taskset', ['-c', String(core), process.execPath, ...nodeArgs]];
  const child = spawn(cmd, argv, { cwd, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const errors = { count: 0, first: [] as string[] };
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    for (const line of chunk.split('\n').filter((l) => l !== '')) {
      errors.count += 1;
      if (errors.first.length < 3) errors.first.push(line.slice(0, 300));
    }
  });
  return new Promise((resolve, reject) => {
    let banner = '';
    let lines = 0;
    let ready = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (ready) {
        for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) lines += 1;
        return;
      }
      banner += chunk;
      const origin = /fhirgate demo is running on (http:\/\/\S+)/.exec(banner)?.[1];
      if (origin === undefined || !banner.includes('Ctrl-C stops.')) return;
      ready = true;
      resolve({
        origin,
        pid: child.pid as number,
        auditLines: () => lines,
        errorLines: () => errors,
        rssBytes: () => Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    });
    void exited.then((code) => {
      if (!ready) reject(new Error(`the demo exited with ${code} before it was ready:\n${banner}${errors.first.join('\n')}`));
    });
  });
}
