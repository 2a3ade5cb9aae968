import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseConnectionString } from '../../src/auth/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { strictTLSServer } from '../support/openssl-server.js';
import { tinyproxy } from '../support/tinyproxy.js';
import { testCertificates } from '../support/tls-certs.js';
import { tlsSandbox } from '../support/tls-front.js';

type Coded = Error & { code?: string };

function gateway(t: { after(fn: () => Promise<void>): void }, options: ConstructorParameters<typeof AsyncFHIRGateway>[0] = {}): AsyncFHIRGateway {
  const gw = new AsyncFHIRGateway({ events: false, keepaliveExpiry: 60, ...options });
  t.after(() => gw.close());
  return gw;
}

/** `fhir://127.0.0.1:<port>/fhir/R4/?ca_path=…&cert_path=…&key_path=…` with the given files. */
function source(authority: string, files: { ca?: string; cert?: string; key?: string; passphrase?: string }): string {
  const params = [
    ['ca_path', files.ca],
    ['cert_path', files.cert],
    ['key_path', files.key],
    ['key_passphrase_path', files.passphrase],
  ].filter((p): p is [string, string] => p[1] !== undefined);
  return `fhir://${authority}/fhir/R4/?${params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`;
}

test('a server that requires a client certificate: the source presents the one of cert_path/key_path and trusts ca_path', async (t) => {
  const up = await tlsSandbox(t, { requireClientCert: true }, { open: true });
  if (up === undefined) return;
  const { certs, front } = up;
  const gw = gateway(t);
  gw.addSource('ehr', source(front.authority, { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey }));
  assert.equal((await gw.read('Patient', 'a-patient-1', 'ehr')).id, 'a-patient-1');
  assert.deepEqual(front.clients, ['fhirgate client']);
});

test('an encrypted client key: key_passphrase_path in the connection string, passphrase in the tls option', async (t) => {
  const up = await tlsSandbox(t, { requireClientCert: true }, { open: true });
  if (up === undefined) return;
  const { certs, front } = up;
  const gw = gateway(t);
  gw.addSource('by-path', source(front.authority, { ca: certs.ca, cert: certs.clientCert, key: certs.clientKeyEncrypted, passphrase: certs.passphrase }));
  gw.addSource('by-option', `fhir://${front.authority}/fhir/R4/`, {
    tls: { ca: readFileSync(certs.ca), cert: readFileSync(certs.clientCert), key: readFileSync(certs.clientKeyEncrypted), passphrase: 'correct horse battery staple', servername: 'localhost' },
  });
  assert.equal((await gw.read('Patient', 'a-patient-1', 'by-path')).id, 'a-patient-1');
  assert.equal((await gw.read('Patient', 'a-patient-1', 'by-option')).id, 'a-patient-1');
  assert.deepEqual(front.clients, ['fhirgate client', 'fhirgate client']);
  assert.throws(
    () => gw.addSource('bad', `fhir://${front.authority}/fhir/R4/`, { tls: { cert: readFileSync(certs.clientCert), key: readFileSync(certs.clientKeyEncrypted), passphrase: 'not-the-passphrase' } }),
    (err: Coded) => err.code === 'ERR_TLS_FILE' && /^source "bad" options\.tls: key cannot be decrypted with the passphrase given/.test(err.message) && !err.message.includes('not-the-passphrase'),
  );
});

test('two sources on one origin with different client certificates never share a socket', async (t) => {
  const up = await tlsSandbox(t, {}, { open: true });
  if (up === undefined) return;
  const { certs, front } = up;
  const gw = gateway(t);
  gw.addSource('with-cert', source(front.authority, { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey }));
  gw.addSource('without', source(front.authority, { ca: certs.ca }));
  for (let i = 0; i < 3; i++) {
    await gw.read('Patient', 'a-patient-1', 'with-cert');
    await gw.read('Patient', 'a-patient-1', 'without');
  }
  // One keep-alive connection per source: the first with its certificate, the second without one.
  assert.deepEqual([...front.clients].sort(), ['', 'fhirgate client']);
  const status = gw.getPoolStatus();
  assert.equal(status.totals.idle, 2);
  assert.equal(status.sources['with-cert']?.idle, 2, "a source's counts are its origin's, every TLS setting's together");
});

test('a private CA is trusted for its source only; a wrong CA is ERR_TLS naming the request, not a bare verification code', async (t) => {
  const up = await tlsSandbox(t, {}, { open: true });
  if (up === undefined) return;
  const { certs, front } = up;
  const gw = gateway(t);
  gw.addSource('right', source(front.authority, { ca: certs.ca }));
  gw.addSource('wrong-ca', source(front.authority, { ca: certs.wrongCa }));
  assert.equal((await gw.read('Patient', 'a-patient-1', 'right')).id, 'a-patient-1');
  await assert.rejects(gw.read('Patient', 'a-patient-1', 'wrong-ca'), (err: Coded) => {
    assert.equal(err.code, 'ERR_TLS');
    assert.match(err.message, new RegExp(`^GET https://${front.authority}/fhir/R4/Patient/a-patient-1 failed: the server's certificate is not signed by a trusted CA \\((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN)\\)`));
    return true;
  });
  // A loopback source without TLS settings is plain http: give it https through the tls option with Node's own CA list.
  const https = gateway(t);
  https.addSource('default-trust', `fhir://${front.authority}/fhir/R4/`, { tls: { servername: 'localhost' } });
  await assert.rejects(https.read('Patient', 'a-patient-1', 'default-trust'), { code: 'ERR_TLS' });
});

test('no client certificate, or an expired one, where the server asks (OpenSSL answering with its alert): ERR_TLS saying so', async (t) => {
  const certs = testCertificates(t);
  if (certs === undefined) return;
  const authority = await strictTLSServer(t, certs);
  if (authority === undefined) return;
  const gw = gateway(t, { retry: false });
  gw.addSource('none', source(authority, { ca: certs.ca }));
  gw.addSource('expired', source(authority, { ca: certs.ca, cert: certs.expiredCert, key: certs.expiredKey }));
  gw.addSource('valid', source(authority, { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey }));
  await assert.rejects(gw.read('Patient', 'a-patient-1', 'none'), (err: Coded) => {
    assert.equal(err.code, 'ERR_TLS', err.message);
    assert.match(err.message, new RegExp(`^GET https://${authority}/fhir/R4/Patient/a-patient-1 failed: the server asks for a client certificate and none was given \\(ERR_SSL_\\w+_ALERT_CERTIFICATE_REQUIRED\\)`));
    return true;
  });
  await assert.rejects(gw.read('Patient', 'a-patient-1', 'expired'), (err: Coded) => {
    assert.equal(err.code, 'ERR_TLS', err.message);
    assert.match(err.message, /the server refused the client certificate \(ERR_SSL_[\w/]+_ALERT_CERTIFICATE_EXPIRED\)/);
    return true;
  });
  // The valid certificate gets through the handshake: the answer is s_server's status page, not FHIR.
  await assert.rejects(gw.read('Patient', 'a-patient-1', 'valid'), (err: Coded) => err.code !== 'ERR_TLS' && err.code !== 'ERR_NETWORK');
});

test('TLS files are read when the source is added: an unreadable or unusable file is ERR_TLS_FILE naming its path, never its contents', async (t) => {
  const certs = testCertificates(t);
  if (certs === undefined) return;
  const gw = gateway(t);
  assert.throws(() => gw.addSource('gone', source('127.0.0.1:1', { ca: `${certs.dir}/missing.pem` })), (err: Coded) => {
    assert.equal(err.code, 'ERR_TLS_FILE');
    assert.equal(err.message, `source "gone": cannot read ca_path ${certs.dir}/missing.pem (ENOENT)`);
    return true;
  });
  const key = readFileSync(certs.clientKey, 'utf8');
  assert.throws(() => gw.addSource('mixed', source('127.0.0.1:1', { ca: certs.ca, cert: certs.clientCert, key: certs.expiredKey })), (err: Coded) => {
    assert.equal(err.code, 'ERR_TLS_FILE');
    assert.equal(err.message, `source "mixed": key (${certs.expiredKey}) is not the private key of cert (${certs.clientCert})`);
    return true;
  });
  assert.throws(() => gw.addSource('key-as-ca', source('127.0.0.1:1', { ca: certs.clientKey })), (err: Coded) => {
    assert.equal(err.code, 'ERR_TLS_FILE');
    assert.ok(err.message.includes(certs.clientKey));
    assert.ok(!err.message.includes(key.split('\n')[1]!.slice(0, 20)), 'no line of the key');
    return true;
  });
});

test('connection string: ca_path makes a loopback source https; cert_path needs key_path; no TLS files with allow_http', () => {
  assert.equal(parseConnectionString('fhir://127.0.0.1:8443/r4/?ca_path=/etc/ca.pem').baseUrl, 'https://127.0.0.1:8443/r4');
  assert.equal(parseConnectionString('fhir://127.0.0.1:8080/r4/').baseUrl, 'http://127.0.0.1:8080/r4');
  assert.deepEqual(parseConnectionString('fhir://ehr.example.org/r4/?cert_path=c.pem&key_path=k.pem&key_passphrase_path=p.txt').tlsFiles, {
    caPath: undefined,
    certPath: 'c.pem',
    keyPath: 'k.pem',
    passphrasePath: 'p.txt',
  });
  assert.throws(() => parseConnectionString('fhir://ehr.example.org/r4/?cert_path=c.pem'), { code: 'ERR_CONNECTION_STRING', message: /needs both cert_path and key_path/ });
  assert.throws(() => parseConnectionString('fhir://ehr.example.org/r4/?key_passphrase_path=p.txt'), { code: 'ERR_CONNECTION_STRING', message: /key_passphrase_path needs key_path/ });
  assert.throws(() => parseConnectionString('fhir://ehr.example.org/r4/?ca_path=ca.pem&allow_http=true'), { code: 'ERR_CONNECTION_STRING' });
  assert.throws(() => parseConnectionString('fhir://ehr.example.org/r4/?ca_pth=ca.pem'), { code: 'ERR_CONNECTION_STRING', message: /did you mean ca_path\?/ });
});

test('the tls option refuses unknown keys and a cert without its key, and does not go with the TLS files of the connection string', () => {
  const gw = new AsyncFHIRGateway({ events: false });
  assert.throws(() => gw.addSource('a', 'fhir://ehr.example.org/r4/', { tls: { cafile: 'x' } as never }), /source "a" options\.tls has an unknown option \(key 1\); the options are ca, cert, key, passphrase, servername/);
  assert.throws(() => gw.addSource('a', 'fhir://ehr.example.org/r4/', { tls: { cert: 'x' } }), { code: 'ERR_TLS_FILE', message: /needs both cert and key/ });
  assert.throws(() => gw.addSource('a', 'fhir://ehr.example.org/r4/?ca_path=ca.pem', { tls: { servername: 'x' } }), { name: 'TypeError', message: /not both/ });
  assert.throws(() => gw.addSource('a', 'fhir://ehr.example.org/r4/', { tsl: {} } as never), /addSource: options\.tsl is not an option; did you mean `tls`\?/);
  return gw.close();
});

test('an https source with a private CA and a client certificate through a CONNECT tunnel', async (t) => {
  const proxy = await tinyproxy(t);
  const up = await tlsSandbox(t, { requireClientCert: true }, { open: true });
  if (proxy === undefined || up === undefined) return;
  const { certs, front } = up;
  const gw = gateway(t, { proxy: { https: proxy.url } });
  gw.addSource('ehr', source(front.authority, { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey }));
  assert.equal((await gw.read('Patient', 'a-patient-1', 'ehr')).id, 'a-patient-1');
  assert.deepEqual(front.clients, ['fhirgate client']);
  assert.deepEqual(proxy.requests(), [`CONNECT ${front.authority} HTTP/1.1`]);
});
