/**
 * `GET /.well-known/jwks.json`: the public keys every mounted component signs with (a gateway's
 * JWT-assertion keys), as one JSON Web Key Set (RFC 7517 §5) that authorization servers such as Epic
 * fetch from the JWKS URL registered for the app. Always public; cacheable.
 * @module
 */
import type { Logger, Mountable, OpenAPIOperation } from '../mount/index.js';
import { ERROR_RESPONSE } from './openapi.js';
import type { Endpoint } from './pipeline.js';

/** The path of the JWK Set. */
export const JWKS_PATH = '/.well-known/jwks.json';

/** Members that only private or symmetric keys have (RFC 7518 §6.2.2, §6.3.2, §6.4.1). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

const OPERATION: OpenAPIOperation = {
  summary: 'JSON Web Key Set',
  description: 'The public keys the gateways sign their JWT client assertions with (current and next), for the JWKS URL registered with an authorization server. Never needs an API key.',
  tags: ['host'],
  responses: {
    200: { description: 'The JWK Set', content: { 'application/jwk-set+json': { schema: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: { type: 'object' } } } } } } },
    default: ERROR_RESPONSE,
  },
};

/**
 * The JWKS endpoint over the mounted components (read at each request), answered with
 * `Cache-Control: public, max-age=<maxAgeSeconds>`. A component whose `jwks()` throws is logged and
 * left out; a key with a private member is never served.
 */
export function jwksEndpoint(components: () => readonly { name: string; mountable: Mountable }[], options: { maxAgeSeconds: number; logger: Logger }): Endpoint {
  return {
    method: 'GET',
    path: JWKS_PATH,
    prefix: '',
    public: true,
    operation: OPERATION,
    run: () => ({
      status: 200,
      headers: { 'content-type': 'application/jwk-set+json', 'cache-control': `public, max-age=${options.maxAgeSeconds}` },
      body: JSON.stringify({ keys: collect(components(), options.logger) }),
    }),
  };
}

function collect(components: readonly { name: string; mountable: Mountable }[], logger: Logger): Record<string, unknown>[] {
  const keys = new Map<string, Record<string, unknown>>();
  for (const { name, mountable } of components) {
    if (typeof mountable.jwks !== 'function') continue;
    let offered: readonly Record<string, unknown>[];
    try {
      offered = mountable.jwks();
    } catch (error) {
      logger.error('jwks failed', { component: name, error: (error as Error)?.message });
      continue;
    }
    for (const jwk of Array.isArray(offered) ? offered : []) {
      if (typeof jwk !== 'object' || jwk === null || typeof jwk.kty !== 'string' || PRIVATE_MEMBERS.some((m) => m in jwk)) {
        logger.error('jwks: a key was left out (not a public JWK)', { component: name });
        continue;
      }
      keys.set(JSON.stringify(jwk), jwk);
    }
  }
  return [...keys.values()];
}
