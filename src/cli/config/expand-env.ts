/**
 * `${ENV_VAR}` expansion in config strings, so that secrets stay out of the file.
 * @module
 */
import { FhirgateError } from '../../errors.js';

const REFERENCE = /\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Replaces every `${NAME}` in `text` with the variable's value; `$${` stands for a literal `${`. An
 * unset variable or a malformed name is `ERR_CONFIG` naming `path` and the variable, never a value.
 *
 * @example
 * ```ts
 * expandEnv('fhir://h/?client_id=app&client_secret=${EHR_SECRET}', 'sources.ehr', process.env);
 * ```
 */
export function expandEnv(text: string, path: string, env: Readonly<Record<string, string | undefined>>): string {
  const parts = text.split('$${');
  return parts.map((part) => part.replace(REFERENCE, (_, name: string) => lookup(name, path, env))).join('${');
}

function lookup(name: string, path: string, env: Readonly<Record<string, string | undefined>>): string {
  if (!NAME.test(name)) throw new FhirgateError('ERR_CONFIG', `${path}: a \${…} reference must hold a variable name (letters, digits and _); write $\${ for a literal \${`);
  const value = env[name];
  if (value === undefined) throw new FhirgateError('ERR_CONFIG', `${path}: environment variable ${name} is not set`);
  return value;
}
