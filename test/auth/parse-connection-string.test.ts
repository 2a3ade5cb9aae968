import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SCOPE, parseConnectionString } from '../../src/auth/index.js';
import { isLoopback } from '../../src/auth/parse-connection-string.js';

const TOKEN = 'token_url=https%3A%2F%2Fauth.example.org%2Ftoken';
const SECRET = 'S3cr+t:%25pw';

test('a client secret source: https base, decoded values, default scope and Basic method', () => {
  const c = parseConnectionString(`fhir://Fhir.Example.org:8443/api/FHIR/R4/?client_id=app&client_secret=${encodeURIComponent(SECRET)}&${TOKEN}`);
  assert.equal(c.baseUrl, 'https://fhir.example.org:8443/api/FHIR/R4');
  assert.equal(c.origin, 'https://fhir.example.org:8443');
  assert.equal(c.timeoutMs, undefined);
  assert.deepEqual(c.auth, {
    kind: 'client_secret',
    clientId: 'app',
    tokenUrl: 'https://auth.example.org/token',
    tokenOrigin: undefined,
    scope: DEFAULT_SCOPE,
    audience: undefined,
    clientSecret: SECRET,
    method: 'client_secret_basic',
  });
});

test('a + stays a + (a space is written %20), and client_secret_post can be chosen', () => {
  const c = parseConnectionString(`fhir://h.example.org/r4?client_id=a%20b&client_secret=a+b&${TOKEN}&auth_method=client_secret_post&scope=system/*.rs%20system/*.cud&audience=https://h.example.org/r4&timeout=2.5`);
  assert.equal(c.auth?.kind, 'client_secret');
  assert.equal(c.auth?.kind === 'client_secret' && c.auth.clientSecret, 'a+b');
  assert.equal(c.auth?.clientId, 'a b');
  assert.equal(c.auth?.kind === 'client_secret' && c.auth.method, 'client_secret_post');
  assert.equal(c.auth?.scope, 'system/*.rs system/*.cud');
  assert.equal(c.auth?.audience, 'https://h.example.org/r4');
  assert.equal(c.timeoutMs, 2500);
  assert.equal(c.baseUrl, 'https://h.example.org/r4');
});

test('a JWT assertion source with key_id and jku', () => {
  const c = parseConnectionString(`fhir://h.example.org/r4/?client_id=app&client_secret_path=/keys/k.pem&use_jwt_assertion=TRUE&${TOKEN}&key_id=k1&jku=https://app.example.org/jwks.json`);
  assert.deepEqual(c.auth, {
    kind: 'jwt_assertion',
    clientId: 'app',
    tokenUrl: 'https://auth.example.org/token',
    tokenOrigin: undefined,
    scope: DEFAULT_SCOPE,
    audience: undefined,
    keyPath: '/keys/k.pem',
    keyId: 'k1',
    jku: 'https://app.example.org/jwks.json',
    nextKeyPath: undefined,
    nextKeyId: undefined,
  });
});

test('without token_url the token endpoint is left to discovery; next_key_path and next_key_id name the next key', () => {
  const secret = parseConnectionString('fhir://h.example.org/r4/?client_id=a&client_secret=x&auth_method=client_secret_post');
  assert.equal(secret.auth?.tokenUrl, undefined);
  assert.equal(secret.auth?.kind === 'client_secret' && secret.auth.method, 'client_secret_post');
  const c = parseConnectionString('fhir://h.example.org/r4/?client_id=app&client_secret_path=/keys/k1.pem&use_jwt_assertion=true&next_key_path=/keys/k2.pem&next_key_id=k2');
  assert.equal(c.auth?.tokenUrl, undefined);
  assert.equal(parseConnectionString('fhir://fhir.example.org/r4/?client_id=a&client_secret=x&token_origin=https://Auth.Example.org:443/').auth?.tokenOrigin, 'https://auth.example.org');
  assert.equal(parseConnectionString('fhir://127.0.0.1:9/r4/?client_id=a&client_secret=x&token_origin=http://127.0.0.1:10').auth?.tokenOrigin, 'http://127.0.0.1:10');
  assert.equal(c.allowHttp, false);
  assert.deepEqual(c.auth?.kind === 'jwt_assertion' && [c.auth.keyPath, c.auth.nextKeyPath, c.auth.nextKeyId], ['/keys/k1.pem', '/keys/k2.pem', 'k2']);
  assert.equal(parseConnectionString('fhir://h.internal/r4/?client_id=a&client_secret=x&allow_http=true').allowHttp, true);
});

test('no client_id and no token_url: a public source; loopback hosts and allow_http use http', () => {
  assert.deepEqual(parseConnectionString('fhir://localhost:8080/fhir/'), {
    baseUrl: 'http://localhost:8080/fhir',
    origin: 'http://localhost:8080',
    auth: undefined,
    timeoutMs: undefined,
    allowHttp: false,
  });
  assert.equal(parseConnectionString('fhir://127.0.0.1:9/').baseUrl, 'http://127.0.0.1:9');
  assert.equal(parseConnectionString('fhir://[::1]:9/r4').baseUrl, 'http://[::1]:9/r4');
  assert.equal(parseConnectionString('fhir://hapi.internal/fhir?allow_http=true').baseUrl, 'http://hapi.internal/fhir');
  assert.equal(parseConnectionString('fhir://hapi.internal/fhir?allow_http=false').baseUrl, 'https://hapi.internal/fhir');
  assert.equal(parseConnectionString(`fhir://h.example.org/?client_id=a&client_secret=b&token_url=http://localhost:1/t`).auth?.tokenUrl, 'http://localhost:1/t');
  assert.ok(isLoopback('api.localhost') && !isLoopback('127.0.0.1.example.org'));
});

const errors: [string, string, RegExp][] = [
  ['not fhir://', 'https://h.example.org/r4', /fhir:\/\//],
  ['no host', 'fhir:///r4', /host is missing/],
  ['a fragment', 'fhir://h.example.org/r4#x', /fragment/],
  ['user information', 'fhir://user:pw@h.example.org/r4', /user information/],
  ['a bad host', 'fhir://h ost/r4', /host or base path/],
  ['an unknown parameter', 'fhir://h.example.org/?client_idd=a', /unknown parameter "client_idd" \(did you mean client_id\?\); allowed: client_id, token_url, client_secret, client_secret_path, scope, use_jwt_assertion, audience, key_id, jku, next_key_path, next_key_id, auth_method, timeout, allow_http, token_origin/],
  ['a malformed escape', 'fhir://h.example.org/?client_id=%E0%A4%A', /the value of client_id has a malformed %-escape/],
  ['a stranger parameter, by position only', 'fhir://h.example.org/?client_id=a&TopSecretTail123', /an unknown parameter at position 2 of the query; allowed:/],
  ['a malformed escape in a name', 'fhir://h.example.org/?client_id=a&%zzsecret=1', /an unknown parameter at position 2 of the query/],
  ['a repeated parameter', `fhir://h.example.org/?client_id=a&client_id=b&${TOKEN}`, /client_id is given twice/],
  ['an empty value', `fhir://h.example.org/?client_id=&${TOKEN}`, /client_id is empty/],
  ['both secret and path', `fhir://h.example.org/?client_id=a&client_secret=x&client_secret_path=/k&use_jwt_assertion=true&${TOKEN}`, /client_secret or client_secret_path, not both/],
  ['a path without use_jwt_assertion', `fhir://h.example.org/?client_id=a&client_secret_path=/k&${TOKEN}`, /client_secret_path needs use_jwt_assertion=true/],
  ['use_jwt_assertion without a path', `fhir://h.example.org/?client_id=a&use_jwt_assertion=true&${TOKEN}`, /use_jwt_assertion=true needs client_secret_path/],
  ['use_jwt_assertion not a boolean', `fhir://h.example.org/?client_id=a&use_jwt_assertion=yes&${TOKEN}`, /use_jwt_assertion must be true or false/],
  ['allow_http not a boolean', 'fhir://h.example.org/?allow_http=1', /allow_http must be true or false/],
  ['token_url without client_id', `fhir://h.example.org/?${TOKEN}`, /client_id is missing/],
  ['a secret without client_id', 'fhir://h.example.org/?client_secret=x', /client_secret needs client_id/],
  ['a scope on a public source', 'fhir://h.example.org/?scope=x', /scope needs client_id/],
  ['no secret and no key', `fhir://h.example.org/?client_id=a&${TOKEN}`, /client_secret is missing/],
  ['a relative token_url', 'fhir://h.example.org/?client_id=a&client_secret=x&token_url=/token', /token_url must be an absolute URL/],
  ['an http token_url', 'fhir://h.example.org/?client_id=a&client_secret=x&token_url=http://auth.example.org/t', /token_url must be https/],
  ['a token_url with user information', 'fhir://h.example.org/?client_id=a&client_secret=x&token_url=https://u:p@auth.example.org/t', /token_url must not hold user information/],
  ['an http jku', `fhir://h.example.org/?client_id=a&client_secret_path=/k&use_jwt_assertion=true&${TOKEN}&jku=http://app.example.org/jwks`, /jku must be an https URL/],
  ['a loopback http jku', `fhir://h.example.org/?client_id=a&client_secret_path=/k&use_jwt_assertion=true&${TOKEN}&jku=http://127.0.0.1:8000/jwks`, /jku must be an https URL/],
  ['next_key_path with a secret', `fhir://h.example.org/?client_id=a&client_secret=x&${TOKEN}&next_key_path=/k2`, /next_key_path needs use_jwt_assertion=true/],
  ['next_key_id without next_key_path', `fhir://h.example.org/?client_id=a&client_secret_path=/k&use_jwt_assertion=true&next_key_id=k2`, /next_key_id needs next_key_path/],
  ['next_key_path on a public source', 'fhir://h.example.org/?next_key_path=/k2', /next_key_path needs client_id/],
  ['a bad jku', `fhir://h.example.org/?client_id=a&client_secret_path=/k&use_jwt_assertion=true&${TOKEN}&jku=jwks`, /jku must be an absolute URL/],
  ['key_id with a secret', `fhir://h.example.org/?client_id=a&client_secret=x&${TOKEN}&key_id=k`, /key_id needs use_jwt_assertion=true/],
  ['auth_method with an assertion', `fhir://h.example.org/?client_id=a&client_secret_path=/k&use_jwt_assertion=true&${TOKEN}&auth_method=client_secret_post`, /auth_method applies to client_secret only/],
  ['an unknown auth_method', `fhir://h.example.org/?client_id=a&client_secret=x&${TOKEN}&auth_method=private_key_jwt`, /auth_method must be one of client_secret_basic, client_secret_post/],
  ['token_origin with token_url', `fhir://h.example.org/?client_id=a&client_secret=x&${TOKEN}&token_origin=https://auth.example.org`, /token_origin is for a discovered token endpoint: with token_url, leave it out/],
  ['token_origin with a path', 'fhir://h.example.org/?client_id=a&client_secret=x&token_origin=https://auth.example.org/oauth', /token_origin must be an origin only/],
  ['token_origin over http', 'fhir://h.example.org/?client_id=a&client_secret=x&token_origin=http://auth.example.org', /token_origin must be https/],
  ['token_origin on a public source', 'fhir://h.example.org/?token_origin=https://auth.example.org', /token_origin needs client_id/],
  ['a bad timeout', 'fhir://h.example.org/?timeout=-1', /timeout must be a positive number of seconds/],
  ['a zero timeout', 'fhir://h.example.org/?timeout=0', /timeout must be a positive/],
];

for (const [what, cs, message] of errors) {
  test(`connection string error: ${what}`, () => {
    assert.throws(() => parseConnectionString(cs), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_CONNECTION_STRING');
      assert.match(err.message, message);
      return true;
    });
  });
}

test('no error message quotes the secret', () => {
  const secret = 'TopSecretValue42';
  const bad = [
    `fhir://h.example.org/?client_secret=${secret}`,
    `fhir://h.example.org/?client_id=a&client_secret=${secret}&client_secret=${secret}&${TOKEN}`,
    `fhir://h.example.org/?client_id=a&client_secret=${secret}&client_secret_path=/k&${TOKEN}`,
    `fhir://h.example.org/?client_id=a&client_secret=${secret}&token_url=http://x.example.org/`,
    `fhir://h.example.org/?client_id=a&client_secret=${secret}&${TOKEN}&key_id=${secret}`,
    `fhir://h.example.org/?client_id=a&client_secret=${secret}&${TOKEN}&bogus=${secret}`,
    `fhir://a:${secret}@h.example.org/`,
    // a secret that held & and was not encoded: its tail arrives as a parameter name
    `fhir://h.example.org/?client_id=a&client_secret=abc&${secret}&${TOKEN}`,
    `fhir://h.example.org/?client_id=a&client_secret=abc&${secret}=x&${TOKEN}`,
    `fhir://h.example.org/?client_id=a&client_secret=abc&%${secret}&${TOKEN}`,
  ];
  for (const cs of bad) {
    const err = (() => {
      try {
        parseConnectionString(cs);
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    assert.ok(err, cs);
    assert.ok(!JSON.stringify({ ...err, message: err.message, stack: err.stack }).includes(secret), err.message);
  }
});

test('a non-string connection string is a TypeError', () => {
  assert.throws(() => parseConnectionString(42 as unknown as string), TypeError);
});
