/**
 * The outbound proxy from the environment, as curl reads it: the one place fhirgate reads
 * `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` (the library takes the `proxy` option only).
 * @module
 */
import { checkProxyOptions } from '../http/proxy-options.js';
import type { ProxyOptions } from '../http/proxy-options.js';
import { configError } from './config/checks.js';

/** The variables, lower case first (curl's order: `https_proxy` wins over `HTTPS_PROXY`). */
const VARIABLES = { https: ['https_proxy', 'HTTPS_PROXY'], http: ['http_proxy', 'HTTP_PROXY'], noProxy: ['no_proxy', 'NO_PROXY'] } as const;

/**
 * The `proxy` option `env` describes, or `undefined` when it sets neither `HTTPS_PROXY` nor
 * `HTTP_PROXY` (an empty value counts as unset). A value the option refuses is `ERR_CONFIG` naming the
 * variable, never quoting its value (it may hold the proxy's password).
 */
export function proxyFromEnv(env: Readonly<Record<string, string | undefined>>): ProxyOptions | undefined {
  const read = (names: readonly [string, string]): [string, string] | undefined => {
    for (const name of names) {
      const value = env[name];
      if (value !== undefined && value.trim() !== '') return [name, value.trim()];
    }
    return undefined;
  };
  const https = read(VARIABLES.https);
  const http = read(VARIABLES.http);
  const noProxy = read(VARIABLES.noProxy);
  if (https === undefined && http === undefined) return undefined;
  const proxy: ProxyOptions = {
    ...(https === undefined ? {} : { https: https[1] }),
    ...(http === undefined ? {} : { http: http[1] }),
    ...(noProxy === undefined ? {} : { noProxy: noProxy[1] }),
  };
  try {
    checkProxyOptions(proxy, 'proxy');
  } catch (error) {
    const which = (error as Error).message.startsWith('proxy.noProxy') ? noProxy : (error as Error).message.startsWith('proxy.http ') ? http : https;
    throw configError(which?.[0] ?? 'HTTPS_PROXY', (error as Error).message.replace(/^proxy\.\w+:? /, ''));
  }
  return proxy;
}
