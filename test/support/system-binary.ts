/**
 * Tests that need a system binary (haproxy, redis-server, nats-server) find it here. Outside CI a missing
 * binary skips the test with one line naming the Debian package; with CI=true it fails the test.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The part of a `node:test` context this needs. */
export interface SkippableTest {
  skip(message?: string): void;
}

/** The directories searched: `PATH`, then the sbin directories a non-root `PATH` often lacks. */
function searchPath(): string[] {
  return [...(process.env['PATH'] ?? '').split(delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin'].filter((d) => d !== '');
}

/** The absolute path of executable `name`, or `undefined`. */
export function findBinary(name: string): string | undefined {
  for (const dir of searchPath()) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The path of `name`; when it is missing, skips `t` (outside CI) or throws (CI=true) with one line
 * naming the Debian package to install. Returns `undefined` only when the test was skipped: return
 * from the test then.
 *
 * @example
 * ```ts
 * test('behind haproxy', async (t) => {
 *   const haproxy = systemBinary(t, 'haproxy');
 *   if (haproxy === undefined) return;
 * });
 * ```
 */
export function systemBinary(t: SkippableTest, name: string, debianPackage = name, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const found = findBinary(name);
  if (found !== undefined) return found;
  const line = `${name} is not installed: apt-get install -y ${debianPackage}`;
  if (env['CI'] === 'true') throw new Error(`${line} (CI=true: a missing binary fails the test)`);
  t.skip(line);
  return undefined;
}
