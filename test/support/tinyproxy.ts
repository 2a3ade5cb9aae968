/**
 * A real forward proxy (Debian's `tinyproxy`) on a loopback port, for the outbound proxy tests: its
 * config in a temp dir, its log read back to show which requests went through it.
 * @module
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { startServer } from './bus-servers.js';
import { systemBinary } from './system-binary.js';

/** What the proxy allows. */
export interface TinyproxyOptions {
  /** `BasicAuth user password`: the proxy answers 407 without them. */
  readonly basicAuth?: { readonly user: string; readonly password: string };
  /** `ConnectPort` lines: CONNECT to any other port is refused (403). Default: every port allowed. */
  readonly connectPorts?: readonly number[];
}

/** A running tinyproxy. */
export interface Tinyproxy {
  /** `http://127.0.0.1:<port>`, without credentials. */
  readonly url: string;
  readonly port: number;
  /** The request lines the proxy logged (`CONNECT 127.0.0.1:1234 HTTP/1.1`, `GET http://… HTTP/1.1`). */
  requests(): string[];
}

/**
 * Starts tinyproxy for test `t` (stopped in `t.after`), or skips the test when it is not installed
 * (fails it under CI=true). Returns `undefined` when skipped.
 *
 * @example
 * ```ts
 * const proxy = await tinyproxy(t, { basicAuth: { user: 'alice', password: 's3cret' } });
 * if (proxy === undefined) return;
 * ```
 */
export async function tinyproxy(t: TestContext, options: TinyproxyOptions = {}): Promise<Tinyproxy | undefined> {
  const binary = systemBinary(t, 'tinyproxy');
  if (binary === undefined) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-tinyproxy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, 'tinyproxy.log');
  const configFor = (port: number): string => {
    const config = [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 60',
      `LogFile "${log}"`,
      'LogLevel Connect',
      'MaxClients 100',
      'Allow 127.0.0.1',
      ...(options.basicAuth === undefined ? [] : [`BasicAuth ${options.basicAuth.user} ${options.basicAuth.password}`]),
      ...(options.connectPorts ?? []).map((p) => `ConnectPort ${p}`),
      '',
    ].join('\n');
    writeFileSync(join(dir, 'tinyproxy.conf'), config);
    return join(dir, 'tinyproxy.conf');
  };
  const server = await startServer(t, binary, (port) => `http://127.0.0.1:${port}`, (port) => ['-d', '-c', configFor(port)]);
  const port = Number(new URL(server.url).port);
  return {
    url: server.url,
    port,
    requests: () => {
      let text = '';
      try {
        text = readFileSync(log, 'utf8');
      } catch {
        return [];
      }
      return [...text.matchAll(/Request \(file descriptor \d+\): (.*)$/gm)].map((m) => m[1]!.trim());
    },
  };
}
