/**
 * Finding a Debian program a test needs (redis-server, nats-server, haproxy). Outside CI a missing one
 * skips the test with one line naming the package; with CI=true it fails the test.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { TestContext } from 'node:test';

const SEARCH = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin', '/usr/local/bin'];

/** The path of `binary`, or `undefined` after skipping `t` (outside CI). Throws under CI=true. */
export function systemBinary(t: TestContext, binary: string, debianPackage: string): string | undefined {
  for (const dir of SEARCH) {
    const path = join(dir, binary);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  const line = `${binary} not found: install the Debian package ${debianPackage} (apt-get install -y ${debianPackage})`;
  if (process.env.CI === 'true') throw new Error(line);
  t.skip(line);
  return undefined;
}
