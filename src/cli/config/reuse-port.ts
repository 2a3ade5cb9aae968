/**
 * The `reusePort` setting of `serve` with workers (`"reusePort"` in the file, `--reuse-port` on the command
 * line): whether each worker listens on the port itself (`serveCluster`'s `reusePort` option).
 * @module
 */
import { reusePortMissing } from '../../cluster/listen-mode.js';
import { configError } from './checks.js';

/**
 * `'auto'`, `true` or `false` (from the file, or the strings `auto`, `true`, `false` from the command
 * line), or `undefined`. `true` where this Node has no `reusePort` is refused, saying why.
 */
export function optionalReusePort(value: unknown, path: string): 'auto' | boolean | undefined {
  if (value === undefined || value === 'auto') return value;
  const flag = value === 'true' ? true : value === 'false' ? false : value;
  if (typeof flag !== 'boolean') throw configError(path, 'must be "auto", true or false');
  const missing = flag ? reusePortMissing() : undefined;
  if (missing !== undefined) throw configError(path, `is true, but ${missing}: leave it "auto" or false`);
  return flag;
}
