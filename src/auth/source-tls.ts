/**
 * A source's TLS settings: its connection string's files, read once when the source is added, or the
 * `tls` option of `addSource`.
 * @module
 */
import { readFileSync } from 'node:fs';
import { FhirgateError } from '../errors.js';
import { checkTLSOptions } from '../http/tls-options.js';
import type { CheckedTLS, TLSOptions } from '../http/tls-options.js';
import type { TLSFiles } from './source-config.js';

/**
 * The checked TLS settings of source `name` from `files` (read now) or `given` (the `tls` option), not
 * both (`TypeError`). A file that cannot be read, or what does not fit together, is `ERR_TLS_FILE` naming
 * the source and the file's path, never its contents.
 */
export function sourceTLS(name: string, files: TLSFiles | undefined, given: TLSOptions | undefined): CheckedTLS | undefined {
  const label = `source "${name}"`;
  if (files !== undefined && given !== undefined) throw new TypeError(`${label}: give TLS files in the connection string (ca_path, cert_path, key_path) or options.tls, not both`);
  if (files === undefined) return checkTLSOptions(given, `${label} options.tls`);
  const { caPath, certPath, keyPath, passphrasePath } = files;
  const read = (path: string | undefined, parameter: string): Buffer | undefined => (path === undefined ? undefined : readTLSFile(label, path, parameter));
  const passphrase = read(passphrasePath, 'key_passphrase_path')?.toString('utf8').replace(/\r?\n$/, '');
  const options: TLSOptions = {
    ...optional('ca', read(caPath, 'ca_path')),
    ...optional('cert', read(certPath, 'cert_path')),
    ...optional('key', read(keyPath, 'key_path')),
    ...optional('passphrase', passphrase),
  };
  return checkTLSOptions(options, label, { ...optional('ca', caPath), ...optional('cert', certPath), ...optional('key', keyPath) });
}

function readTLSFile(label: string, path: string, parameter: string): Buffer {
  try {
    return readFileSync(path);
  } catch (cause) {
    const code = (cause as { code?: unknown } | null)?.code;
    throw new FhirgateError('ERR_TLS_FILE', `${label}: cannot read ${parameter} ${path} (${typeof code === 'string' ? code : 'unreadable'})`, { cause });
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
