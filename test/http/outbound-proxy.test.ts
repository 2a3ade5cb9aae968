import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { sandbox } from '../support/sandbox.js';
import { tinyproxy } from '../support/tinyproxy.js';
import { tlsSandbox } from '../support/tls-front.js';
import type { TLSFront } from '../support/tls-front.js';

/** The sandbox's connection string with its FHIR base and token endpoint moved to the TLS front. */
function throughFront(sb: Sandbox, front: TLSFront, extra = ''): string {
  const host = new URL(sb.origin).host;
  return sb.connectionString().replace(`fhir://${host}`, `fhir://${front.authority}`).replace(encodeURIComponent(sb.origin), encodeURIComponent(`https://${front.authority}`)) + extra;
}

function gateway(t: { after(fn: () => Promise<void>): void }, options: ConstructorParameters<typeof AsyncFHIRGateway>[0]): AsyncFHIRGateway {
  const gw = new AsyncFHIRGateway({ events: false, keepaliveExpiry: 60, ...options });
  t.after(() => gw.close());
  return gw;
}

test('an http source and its token endpoint are reached only through the proxy, with absolute-form requests', async (t) => {
  const proxy = await tinyproxy(t);
  if (proxy === undefined) return;
  const sb = await sandbox(t);
  const gw = gateway(t, { proxy: { http: proxy.url } });
  gw.addSource('sb', sb.connectionString());
  const patient = await gw.read('Patient', 'a-patient-1', 'sb');
  assert.equal(patient.id, 'a-patient-1');
  const requests = proxy.requests();
  assert.ok(requests.includes(`POST ${sb.tokenUrl} HTTP/1.1`), `the proxy saw ${JSON.stringify(requests)}`);
  assert.ok(requests.includes(`GET ${sb.fhirBase}/Patient/a-patient-1 HTTP/1.1`), `the proxy saw ${JSON.stringify(requests)}`);
});

test('SMART discovery goes through the proxy too: a source without token_url finds its token endpoint through it', async (t) => {
  const proxy = await tinyproxy(t);
  if (proxy === undefined) return;
  const sb = await sandbox(t);
  const gw = gateway(t, { proxy: { http: proxy.url } });
  gw.addSource('sb', sb.connectionString(undefined, { discover: true }));
  assert.equal((await gw.read('Patient', 'a-patient-1', 'sb')).id, 'a-patient-1');
  assert.deepEqual(proxy.requests(), [
    `GET ${sb.fhirBase}/.well-known/smart-configuration HTTP/1.1`,
    `POST ${sb.tokenUrl} HTTP/1.1`,
    `GET ${sb.fhirBase}/Patient/a-patient-1 HTTP/1.1`,
  ]);
});

test('an https source with a private CA and its token endpoint go through one CONNECT tunnel, kept alive per origin and counted by the pool', async (t) => {
  const proxy = await tinyproxy(t);
  const up = await tlsSandbox(t);
  if (proxy === undefined || up === undefined) return;
  const { certs, front, sb } = up;
  const gw = gateway(t, { proxy: { https: proxy.url } });
  gw.addSource('ehr', throughFront(sb, front, `&ca_path=${encodeURIComponent(certs.ca)}`));
  for (const id of ['a-patient-1', 'a-patient-2', 'a-patient-3']) assert.equal((await gw.read('Patient', id, 'ehr')).id, id);
  assert.deepEqual(proxy.requests(), [`CONNECT ${front.authority} HTTP/1.1`]);
  // The front saw one TLS connection: the tunnel, which carried the token request and the three reads.
  assert.equal(front.clients.length, 1);
  assert.ok(sb.stats.tokenRequests >= 1);
  const status = gw.getPoolStatus();
  assert.deepEqual({ active: status.totals.active, idle: status.totals.idle }, { active: 0, idle: 1 });
});

test('maxConnections counts tunnels: 20 concurrent reads through the proxy open at most 2 tunnels', async (t) => {
  const proxy = await tinyproxy(t);
  const up = await tlsSandbox(t, {}, { open: true });
  if (proxy === undefined || up === undefined) return;
  const { certs, front } = up;
  const gw = gateway(t, { proxy: { https: proxy.url }, maxConnections: 2 });
  gw.addSource('ehr', `fhir://${front.authority}/fhir/R4/?ca_path=${encodeURIComponent(certs.ca)}`);
  const reads = await Promise.all(Array.from({ length: 20 }, (_, i) => gw.read('Patient', `a-patient-${(i % 5) + 1}`, 'ehr')));
  assert.equal(reads.length, 20);
  const connects = proxy.requests().filter((r) => r.startsWith('CONNECT '));
  assert.ok(connects.length >= 1 && connects.length <= 2, `${connects.length} tunnels`);
  assert.ok(front.clients.length <= 2, `${front.clients.length} TLS connections`);
});

test('a proxy that refuses CONNECT: ERR_PROXY naming the proxy, the upstream and the request, not a socket error', async (t) => {
  const proxy = await tinyproxy(t, { connectPorts: [443] });
  const up = await tlsSandbox(t, {}, { open: true });
  if (proxy === undefined || up === undefined) return;
  const { certs, front } = up;
  const gw = gateway(t, { proxy: { https: proxy.url } });
  gw.addSource('ehr', `fhir://${front.authority}/fhir/R4/?ca_path=${encodeURIComponent(certs.ca)}`);
  await assert.rejects(gw.read('Patient', 'a-patient-1', 'ehr'), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_PROXY');
    assert.match(err.message, new RegExp(`^GET https://${front.authority}/fhir/R4/Patient/a-patient-1 failed: the proxy ${proxy.url} refused CONNECT ${front.authority} with 403 `));
    return true;
  });
  assert.equal(front.clients.length, 0);
  assert.equal(gw.getPoolStatus().totals.active, 0);
});

test('a proxy that asks for credentials gets them as Proxy-Authorization; none or wrong ones are ERR_PROXY_AUTH without the password', async (t) => {
  const proxy = await tinyproxy(t, { basicAuth: { user: 'alice', password: 's3cret' } });
  const up = await tlsSandbox(t);
  if (proxy === undefined || up === undefined) return;
  const { certs, front, sb } = up;
  const withCredentials = `http://alice:s3cret@127.0.0.1:${proxy.port}`;
  const good = gateway(t, { proxy: { https: withCredentials, http: withCredentials } });
  good.addSource('tls', throughFront(sb, front, `&ca_path=${encodeURIComponent(certs.ca)}`));
  good.addSource('plain', sb.connectionString());
  assert.equal((await good.read('Patient', 'a-patient-1', 'tls')).id, 'a-patient-1');
  assert.equal((await good.read('Patient', 'a-patient-2', 'plain')).id, 'a-patient-2');
  assert.ok(proxy.requests().includes(`GET ${sb.fhirBase}/Patient/a-patient-2 HTTP/1.1`));

  const open = `fhir://${front.authority}/fhir/R4/?ca_path=${encodeURIComponent(certs.ca)}`;
  for (const [url, why] of [
    [proxy.url, /asks for credentials \(407\)/],
    [`http://alice:wrong-pass@127.0.0.1:${proxy.port}`, /refused the credentials of the proxy URL \(40[17]\)/],
  ] as const) {
    const gw = gateway(t, { proxy: { https: url } });
    gw.addSource('ehr', open);
    await assert.rejects(gw.read('Patient', 'a-patient-1', 'ehr'), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_PROXY_AUTH', err.message);
      assert.match(err.message, why);
      assert.doesNotMatch(err.message, /wrong-pass|s3cret|alice/);
      return true;
    });
  }
  // An http source: the proxy's 407 to the absolute-form request is no FHIR answer.
  const plain = gateway(t, { proxy: { http: proxy.url } });
  plain.addSource('sb', sb.connectionString());
  await assert.rejects(plain.read('Patient', 'a-patient-1', 'sb'), (err: Error & { code?: string; cause?: { code?: string } }) => {
    assert.equal(err.code, 'ERR_AUTH_TOKEN');
    assert.equal(err.cause?.code, 'ERR_PROXY_AUTH', err.message);
    return true;
  });
  // A token request refused by the proxy: the token error says why.
  const gw = gateway(t, { proxy: { https: proxy.url } });
  gw.addSource('ehr', throughFront(sb, front, `&ca_path=${encodeURIComponent(certs.ca)}`));
  await assert.rejects(gw.read('Patient', 'a-patient-1', 'ehr'), (err: Error & { code?: string; cause?: { code?: string } }) => {
    assert.equal(err.code, 'ERR_AUTH_TOKEN');
    assert.equal(err.cause?.code, 'ERR_PROXY_AUTH');
    assert.match(err.message, /ERR_PROXY_AUTH/);
    return true;
  });
});

test('noProxy: a host, a domain or a host:port on the list is reached directly', async (t) => {
  const proxy = await tinyproxy(t);
  if (proxy === undefined) return;
  const sb = await sandbox(t, { open: true });
  const port = Number(new URL(sb.origin).port);
  for (const noProxy of ['127.0.0.1', `127.0.0.1:${port}`, ['example.org', '*'], 'localhost, .0.0.1']) {
    const gw = gateway(t, { proxy: { http: proxy.url, noProxy } });
    gw.addSource('sb', `fhir://127.0.0.1:${port}/fhir/R4/`);
    assert.equal((await gw.read('Patient', 'a-patient-1', 'sb')).id, 'a-patient-1');
  }
  assert.deepEqual(proxy.requests(), []);
  // Another port of the same host is not on the list: through the proxy.
  const gw = gateway(t, { proxy: { http: proxy.url, noProxy: `127.0.0.1:${port + 1}` } });
  gw.addSource('sb', `fhir://127.0.0.1:${port}/fhir/R4/`);
  await gw.read('Patient', 'a-patient-1', 'sb');
  assert.deepEqual(proxy.requests(), [`GET ${sb.fhirBase}/Patient/a-patient-1 HTTP/1.1`]);
});

test('the proxy option refuses unknown keys, non-http proxy URLs and bad noProxy entries', () => {
  assert.throws(() => new AsyncFHIRGateway({ proxy: { htps: 'http://p:3128' } as never }), /options\.proxy\.htps is not an option; did you mean `https`\?/);
  assert.throws(() => new AsyncFHIRGateway({ proxy: { https: 'https://p:3128' } }), { name: 'TypeError', message: /options\.proxy\.https must be an http:/ });
  assert.throws(() => new AsyncFHIRGateway({ proxy: { https: 'http://u:pw@p:3128/path' } }), (err: Error) => !err.message.includes('pw'));
  assert.throws(() => new AsyncFHIRGateway({ proxy: { https: 'http://p:3128', noProxy: 'http://example.org/' } }), /options\.proxy\.noProxy: "http:\/\/example\.org\/" is not a host/);
});
