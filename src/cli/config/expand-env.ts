/**
 * `${ENV_VAR}` expansion in config strings and `--source` values, so that secrets stay out of the file
 * and off the command line.
 * @module
 */
import { FhirgateError } from '../../errors.js';

/** `$${` (a literal `${`) or a `${…}` reference, left to right. */
const TOKEN = /\$\$\{|\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CONNECTION_STRING = /^\s*fhir:\/\//i;

/**
 * Replaces every `${NAME}` in `text` with the variable's value; `$${` stands for a literal `${`. In a
 * `fhir://` connection string, a reference after the `?` is percent-encoded (`encodeURIComponent`), so
 * that a secret holding `&`, `%`, `=` or `#` arrives as written; a reference before the `?` (or one that
 * holds a whole connection string) is inserted as is. An unset variable or a malformed name is
 * `ERR_CONFIG` naming `path` and the variable, never a value.
 */
export function expandEnv(text: string, path: string, env: Readonly<Record<string, string | undefined>>): string {
  const query = CONNECTION_STRING.test(text) ? text.indexOf('?') : -1;
  return text.replace(TOKEN, (_: string, name: string | undefined, at: number) => {
    if (name === undefined) return '${';
    const value = lookup(name, path, env);
    return query !== -1 && at > query ? encodeURIComponent(value) : value;
  });
}

function lookup(name: string, path: string, env: Readonly<Record<string, string | undefined>>): string {
  if (!NAME.test(name)) throw new FhirgateError('ERR_CONFIG', `${path}: a \${…} reference must hold a variable name (letters, digits and _); write $\${ for a literal \${`);
  const value = env[name];
  if (value === undefined) throw new FhirgateError('ERR_CONFIG', `${path}: environment variable ${name} is not set`);
  return value;
}

/**
 * A setting that is never expanded (one shown on pages served without an API key): a `${…}` reference
 * there is `ERR_CONFIG`, so that no variable (a secret, by mistake) can be published; `$${` is a literal
 * `${` as elsewhere.
 */
export function literalText(text: string, path: string): string {
  return text.replace(TOKEN, (_: string, name: string | undefined) => {
    if (name === undefined) return '${';
    throw new FhirgateError('ERR_CONFIG', `${path}: \${…} is not expanded here (it is shown at / and /docs without an API key); write the text itself, or $\${ for a literal \${`);
  });
}
