/**
 * Reading `fhirgate.json` from disk.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { FhirgateError } from '../../errors.js';
import type { FhirgateConfig } from './config-types.js';
import { validateConfig } from './validate-config.js';

/** Bytes a config file may have; anything larger is not a config file. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Reads, parses and validates a config file. A missing or unreadable file, malformed JSON or an invalid
 * setting is `ERR_CONFIG` naming the file (and the setting's path); no value is ever quoted.
 */
export async function loadConfig(file: string, where: { cwd: string; env: Readonly<Record<string, string | undefined>> }): Promise<FhirgateConfig> {
  const path = resolve(where.cwd, file);
  let text: string;
  try {
    const bytes = await readFile(path);
    if (bytes.length > MAX_CONFIG_BYTES) throw new FhirgateError('ERR_CONFIG', `${file}: larger than 1 MiB; is it the config file?`);
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof FhirgateError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new FhirgateError('ERR_CONFIG', `${file}: cannot read the config file (${code === 'ENOENT' ? 'no such file' : (code ?? 'read error')})`, { cause: error });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text around the error, which may hold a secret: say where only.
    throw new FhirgateError('ERR_CONFIG', `${file}: not valid JSON`);
  }
  return validateConfig(raw, { dir: dirname(path), env: where.env });
}
