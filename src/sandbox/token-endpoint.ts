/**
 * The OAuth 2.0 token endpoint: `client_credentials` with `client_secret_basic`, `client_secret_post`
 * or `private_key_jwt` (RFC 6749 §2.3, §4.4, §5; RFC 7523; SMART Backend Services). Errors are RFC 6749
 * §5.2 bodies; the descriptions never repeat a secret or an assertion.
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { decodeJWT, verifyJWT } from '../lib/jwt/verify-jwt.js';
import type { JWTClaims } from '../lib/jwt/types.js';
import { clientKey, KeyLookupError } from './client-keys.js';
import type { SandboxContext } from './context.js';
import type { TokenAuthMethod, TokenRequestFacts } from './stats.js';

/** The `client_assertion_type` of a JWT assertion (RFC 7523 §2.2). */
export const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** The scope granted when a token request names none. */
export const DEFAULT_SCOPE = 'system/*.read system/*.write';
/** The assertion signing algorithms accepted (SMART Backend Services). */
export const ASSERTION_ALGORITHMS = Object.freeze(['RS384', 'ES384'] as const);

/** What the token endpoint needs to know: the clients and token lifetime, the token URL (the only accepted assertion `aud`). */
export type TokenEndpointContext = Pick<SandboxContext, 'options' | 'tokens' | 'stats' | 'tokenUrl'>;

/** An answer of the token endpoint: JSON body plus extra headers. */
export interface TokenAnswer {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;
}

/** Scope syntax of RFC 6749 §3.3: scope-tokens of %x21 / %x23-5B / %x5D-7E separated by single spaces. */
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+(?: [\x21\x23-\x5b\x5d-\x7e]+)*$/;

type Facts = { -readonly [K in keyof TokenRequestFacts]: TokenRequestFacts[K] };

class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(description);
  }
}

const badClient = (description: string, basic = false): OAuthError =>
  new OAuthError(401, 'invalid_client', description, basic ? { 'www-authenticate': 'Basic realm="fhirgate-sandbox", charset="UTF-8"' } : {});

function sameSecret(given: string, expected: string): boolean {
  const hash = (s: string): Buffer => createHash('sha256').update(s).digest();
  return timingSafeEqual(hash(given), hash(expected));
}

/** `application/x-www-form-urlencoded` decoding of one Basic credential part (RFC 6749 §2.3.1). */
function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw badClient('malformed Basic credentials', true);
  }
}

function basicCredentials(header: string): { clientId: string; secret: string } {
  const encoded = header.slice('basic '.length).trim();
  const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon < 0) throw badClient('malformed Basic credentials', true);
  return { clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
}

function checkSecret(ctx: TokenEndpointContext, clientId: string, secret: string, basic: boolean): void {
  const client = ctx.options.clients.get(clientId);
  if (client?.clientSecret === undefined || !sameSecret(secret, client.clientSecret)) {
    throw badClient('client authentication failed', basic);
  }
}

async function checkAssertion(ctx: TokenEndpointContext, form: URLSearchParams, facts: Facts): Promise<string> {
  const assertion = form.get('client_assertion');
  if (assertion === null || form.get('client_assertion_type') === null) {
    throw new OAuthError(400, 'invalid_request', 'client_assertion and client_assertion_type go together');
  }
  if (form.get('client_assertion_type') !== JWT_BEARER) throw badClient('unsupported client_assertion_type');
  let decoded: ReturnType<typeof decodeJWT>;
  try {
    decoded = decodeJWT(assertion);
  } catch {
    throw badClient('malformed client assertion');
  }
  const { header, payload: { iss } } = decoded;
  if (typeof header.kid === 'string') facts.keyId = header.kid.slice(0, 200);
  const client = typeof iss === 'string' ? ctx.options.clients.get(iss) : undefined;
  if (client === undefined || client.clientSecret !== undefined) throw badClient('client authentication failed');
  let key: Awaited<ReturnType<typeof clientKey>>;
  try {
    key = await clientKey(client, header);
  } catch (err) {
    if (!(err instanceof KeyLookupError)) throw err;
    throw badClient(`client assertion refused: ${err.message}`);
  }
  if (form.has('client_id') && form.get('client_id') !== client.clientId) throw badClient('client_id does not match the assertion');
  let payload: JWTClaims;
  try {
    ({ payload } = await verifyJWT(assertion, {
      algorithms: ASSERTION_ALGORITHMS,
      key: () => key,
      issuer: client.clientId,
      subject: client.clientId,
      audience: ctx.tokenUrl,
      maxLifetimeSeconds: 301,
      requiredClaims: ['iss', 'sub', 'aud', 'exp', 'jti'],
    }));
  } catch (err) {
    throw badClient(`client assertion refused: ${(err as Error).message}`);
  }
  // SMART Backend Services: the header names the signing key (`kid`) and, when it has `typ`, says JWT.
  if (typeof header.kid !== 'string' || header.kid === '') throw badClient('client assertion refused: kid missing');
  if (header.typ !== undefined && (typeof header.typ !== 'string' || header.typ.toUpperCase() !== 'JWT')) throw badClient('client assertion refused: typ is not JWT');
  if (typeof payload.jti !== 'string' || !ctx.tokens.useJti(client.clientId, payload.jti, (payload.exp as number) * 1000)) {
    throw badClient('client assertion refused: jti already used');
  }
  return client.clientId;
}

function authMethodOf(headers: IncomingHttpHeaders, form: URLSearchParams): TokenAuthMethod {
  const used: TokenAuthMethod[] = [];
  if (headers.authorization !== undefined) used.push('client_secret_basic');
  if (form.has('client_secret')) used.push('client_secret_post');
  if (form.has('client_assertion') || form.has('client_assertion_type')) used.push('private_key_jwt');
  if (used.length > 1) throw new OAuthError(400, 'invalid_request', 'more than one client authentication method');
  return used[0] ?? 'none';
}

async function authenticate(ctx: TokenEndpointContext, method: TokenAuthMethod, headers: IncomingHttpHeaders, form: URLSearchParams, facts: Facts): Promise<string> {
  switch (method) {
    case 'client_secret_basic': {
      if (!/^basic /i.test(headers.authorization ?? '')) throw badClient('unsupported authorization scheme', true);
      const { clientId, secret } = basicCredentials(headers.authorization as string);
      checkSecret(ctx, clientId, secret, true);
      return clientId;
    }
    case 'client_secret_post': {
      const clientId = form.get('client_id');
      if (clientId === null) throw badClient('client_id missing');
      checkSecret(ctx, clientId, form.get('client_secret') as string, false);
      return clientId;
    }
    case 'private_key_jwt':
      return checkAssertion(ctx, form, facts);
    case 'none':
      throw badClient('client authentication missing');
  }
}

async function grant(ctx: TokenEndpointContext, headers: IncomingHttpHeaders, form: URLSearchParams, facts: Facts): Promise<TokenAnswer> {
  for (const key of new Set(form.keys())) {
    if (form.getAll(key).length > 1) throw new OAuthError(400, 'invalid_request', `parameter "${key}" repeated`);
  }
  const grantType = form.get('grant_type');
  if (grantType === null) throw new OAuthError(400, 'invalid_request', 'grant_type missing');
  facts.clientId = await authenticate(ctx, facts.authMethod, headers, form, facts);
  if (grantType !== 'client_credentials') throw new OAuthError(400, 'unsupported_grant_type', 'only client_credentials is supported');
  const scope = form.get('scope') ?? DEFAULT_SCOPE;
  if (!SCOPE.test(scope)) throw new OAuthError(400, 'invalid_scope', 'scope is not a space-separated list of scope tokens');
  const body = {
    access_token: ctx.tokens.issue(ctx.options.tokenLifetimeSeconds),
    token_type: 'Bearer',
    expires_in: ctx.options.tokenLifetimeSeconds,
    scope,
  };
  return { status: 200, body, headers: {} };
}

/** Answers one token request (the body already read). Records what it saw in the stats. */
export async function answerTokenRequest(ctx: TokenEndpointContext, headers: IncomingHttpHeaders, body: Buffer): Promise<TokenAnswer> {
  const form = new URLSearchParams(body.toString('utf8'));
  const facts: Facts = {
    authMethod: 'none',
    clientId: form.get('client_id') ?? undefined,
    scope: form.get('scope') ?? undefined,
    audience: form.get('audience') ?? undefined,
  };
  try {
    const type = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') {
      throw new OAuthError(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    }
    facts.authMethod = authMethodOf(headers, form);
    const answer = await grant(ctx, headers, form, facts);
    ctx.stats.recordToken(facts, true);
    return answer;
  } catch (err) {
    ctx.stats.recordToken(facts, false);
    if (!(err instanceof OAuthError)) throw err;
    return { status: err.status, body: { error: err.error, error_description: err.description }, headers: err.headers };
  }
}
