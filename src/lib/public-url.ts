/**
 * Checking a `publicUrl` option (the host's, a service's): the URL callers reach something at.
 * @module
 */

/**
 * Checks option `publicUrl` (an absolute http(s) URL, no credentials, query or fragment) and returns
 * it without a trailing slash; `undefined` stays `undefined`. Throws a `TypeError` naming `name`.
 */
export function checkPublicUrl(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  const url = typeof value === 'string' && !/[#?]/.test(value) && URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '') {
    throw new TypeError(`${name} must be an absolute http(s) URL without credentials, query or fragment`);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}
