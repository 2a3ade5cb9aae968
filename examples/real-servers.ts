/**
 * Connecting to real FHIR servers: one `fhir://` connection string per server says where it is and how
 * to get a token. This example only parses the strings with fhirgate's parser and prints what each
 * source will do (no network, no key file read). With `--connect` it also searches Cerner's open
 * sandbox, which needs no credentials.
 *
 * Run it: `node --import tsx examples/real-servers.ts [--connect]`
 *
 * The form is `fhir://<host>[:port]/<base path>/?<parameters>`: https is used, except for loopback
 * hosts (localhost, 127.x, [::1]) which use http. Parameters (percent-encode values holding & or =):
 *   client_id, token_url      — neither means a public server (no token); client_id without token_url
 *                               discovers the token endpoint from the server's SMART configuration
 *   client_secret             — client credentials with a shared secret (HTTP Basic by default;
 *                               auth_method=client_secret_post sends it in the form body)
 *   client_secret_path + use_jwt_assertion=true — a private key file (PEM or JWK) that signs a JWT
 *                               assertion (SMART Backend Services); key_id and jku set the JWT header;
 *                               next_key_path (and next_key_id) stage the next key for gw.rotateKey()
 *   scope (default "system/*.read system/*.write"), audience, timeout (seconds), allow_http
 * @module
 */
import { AsyncFHIRGateway, isFhirgateError, parseConnectionString } from '../src/index.js';
import type { SourceConfig } from '../src/index.js';

const SOURCES: Readonly<Record<string, string>> = {
  // Epic (backend app): a JWT assertion signed with your private key. Epic knows your public key from
  // the JWKS URL you registered (jku); key_id must match the kid of that key in the JWKS.
  epic:
    'fhir://fhir.epic.com/interconnect-fhir-oauth/api/FHIR/R4/' +
    '?client_id=your-epic-client-id' +
    '&client_secret_path=./keys/epic-private-key.pem' +
    '&use_jwt_assertion=true' +
    '&token_url=https://fhir.epic.com/interconnect-fhir-oauth/oauth2/token' +
    '&key_id=epic-key-2026' +
    '&jku=https://my-app.example.org/.well-known/jwks.json',

  // Medplum: client credentials with the id and secret of a ClientApplication.
  medplum:
    'fhir://api.medplum.com/fhir/R4/' +
    '?client_id=your-medplum-client-id' +
    '&client_secret=your-medplum-client-secret' +
    '&token_url=https://api.medplum.com/oauth2/token',

  // Cerner (Oracle Health) open sandbox: public and read-only, no token at all.
  cerner: 'fhir://fhir-open.cerner.com/r4/ec2458f2-1e24-41c8-b71b-0e701af7583d/',

  // A HAPI FHIR server on this machine (docker run -p 8080:8080 hapiproject/hapi): loopback, so http.
  hapi: 'fhir://localhost:8080/fhir/?timeout=10',
};

for (const [name, connectionString] of Object.entries(SOURCES)) {
  console.log(`${name}: ${describe(parseConnectionString(connectionString))}`);
}

// A mistake is reported before any I/O, naming the parameter and never quoting a secret.
try {
  parseConnectionString('fhir://fhir.example.org/r4/?client_secret=s3cret&token_url=https://fhir.example.org/token');
} catch (err) {
  if (!isFhirgateError(err, 'ERR_CONNECTION_STRING')) throw err;
  console.log(`a broken string: ${err.code}: ${err.message}`);
}

if (process.argv.includes('--connect')) {
  await using gw = new AsyncFHIRGateway();
  gw.addSource('cerner', SOURCES.cerner as string);
  try {
    const bundle = await gw.search('Patient', { family: 'SMART', _count: 5 }, 'cerner', { signal: AbortSignal.timeout(30_000) });
    console.log(`cerner: ${bundle.entry?.length ?? 0} patient(s) named SMART on the first page`);
  } catch (err) {
    // Offline, or the sandbox is down: one line that says what failed, not a stack.
    if (!isFhirgateError(err)) throw err;
    console.error(`cerner: the search failed: ${err.code}: ${err.message.split('\n')[0]}`);
    process.exitCode = 1;
  }
}

/** One line about what a source will do. Shows where a secret comes from, never the secret. */
function describe(config: SourceConfig): string {
  const auth = config.auth;
  const timeout = config.timeoutMs === undefined ? '' : `, ${config.timeoutMs / 1000} s time-out`;
  const where = `FHIR at ${config.baseUrl}${timeout}`;
  if (auth === undefined) return `${where}; public, no token`;
  const token = `token from ${auth.tokenUrl ?? 'the endpoint its SMART configuration names'} for client "${auth.clientId}", scope "${auth.scope}"`;
  if (auth.kind === 'client_secret') return `${where}; ${token} with a client secret (${auth.method})`;
  const kid = auth.keyId === undefined ? 'kid = key thumbprint' : `kid "${auth.keyId}"`;
  const header = auth.jku === undefined ? kid : `${kid}, jku ${auth.jku}`;
  return `${where}; ${token} with a JWT assertion signed by the key in ${auth.keyPath} (${header})`;
}
