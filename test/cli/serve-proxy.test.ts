// `fhirgate serve` and `fhirgate export` read HTTPS_PROXY, HTTP_PROXY and NO_PROXY (lower case first, as
// curl does) into the library's proxy option; nothing else in fhirgate reads them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { proxyFromEnv } from '../../src/cli/proxy-env.js';
import { runMain, startCli, waitServing } from '../support/run-cli.js';
import { sandbox } from '../support/sandbox.js';
import { tinyproxy } from '../support/tinyproxy.js';
import { tlsSandbox } from '../support/tls-front.js';

test('serve with HTTP_PROXY: a source and its token endpoint through the proxy; NO_PROXY bypasses it', async (t) => {
  const proxy = await tinyproxy(t);
  if (proxy === undefined) return;
  const sb = await sandbox(t);
  const envs: Record<string, string>[] = [{ http_proxy: proxy.url }, { HTTP_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' }];
  for (const env of envs) {
    const run = startCli(t, ['serve', '--source', `ehr=${sb.connectionString()}`, '--port', '0'], env);
    const serving = await waitServing(run);
    const patient = await fetch(`${serving.gateway}/ehr/Patient/a-patient-1`);
    assert.equal(patient.status, 200);
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
  }
  // Only the first run went through the proxy: its token request and its read.
  assert.deepEqual(proxy.requests(), [`POST ${sb.tokenUrl} HTTP/1.1`, `GET ${sb.fhirBase}/Patient/a-patient-1 HTTP/1.1`]);
});

test('check with HTTPS_PROXY: an https source of a private CA (ca_path) is checked through a CONNECT tunnel', async (t) => {
  const proxy = await tinyproxy(t);
  const up = await tlsSandbox(t, {}, { open: true });
  if (proxy === undefined || up === undefined) return;
  const { certs, front } = up;
  const source = `ehr=fhir://${front.authority}/fhir/R4/?ca_path=${encodeURIComponent(certs.ca)}`;
  const { code, stdout, stderr } = await runMain(['check', '--source', source, '--json'], { HTTPS_PROXY: proxy.url });
  assert.equal(code, 0, `${stdout}${stderr}`);
  assert.equal((JSON.parse(stdout) as { read: { ok: boolean } }[])[0]?.read.ok, true);
  assert.ok(proxy.requests().every((r) => r === `CONNECT ${front.authority} HTTP/1.1`) && proxy.requests().length >= 1, JSON.stringify(proxy.requests()));
  const wrong = await runMain(['check', '--source', source.replace(encodeURIComponent(certs.ca), encodeURIComponent(certs.wrongCa)), '--json'], {});
  assert.equal(wrong.code, 1);
  assert.match(wrong.stdout, /ERR_TLS: GET https:\/\/127\.0\.0\.1:\d+\/fhir\/R4\/metadata failed: the server's certificate is not signed by a trusted CA/);
});

test('proxyFromEnv: lower case wins, an empty value is unset, no proxy without HTTPS_PROXY or HTTP_PROXY', () => {
  assert.equal(proxyFromEnv({}), undefined);
  assert.equal(proxyFromEnv({ NO_PROXY: 'localhost' }), undefined);
  assert.equal(proxyFromEnv({ HTTPS_PROXY: ' ' }), undefined);
  assert.deepEqual(proxyFromEnv({ https_proxy: 'http://lower:3128', HTTPS_PROXY: 'http://upper:3128', NO_PROXY: '.hospital.local' }), { https: 'http://lower:3128', noProxy: '.hospital.local' });
  assert.deepEqual(proxyFromEnv({ HTTP_PROXY: 'proxy:3128', no_proxy: 'a', NO_PROXY: 'b' }), { http: 'proxy:3128', noProxy: 'a' });
});

test('a bad proxy variable is ERR_CONFIG naming the variable, never quoting its password', async () => {
  const { code, stderr } = await runMain(['serve', '--source', 'ehr=fhir://localhost:1/fhir/', '--port', '0'], { HTTPS_PROXY: 'socks5://user:hunter2@proxy:1080' });
  assert.equal(code, 1, stderr);
  assert.match(stderr, /HTTPS_PROXY: must be an http:\/\/\[user:password@\]host\[:port\] URL of a proxy/);
  assert.doesNotMatch(stderr, /hunter2/);
  assert.throws(() => proxyFromEnv({ HTTP_PROXY: 'http://p:3128', no_proxy: 'http://x/' }), { code: 'ERR_CONFIG', message: /^no_proxy: "http:\/\/x\/" is not a host/ });
});
