import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkProxyOptions, proxyFor } from '../../src/http/proxy-options.js';

/** Whether `url` goes through the proxy under `noProxy`. */
function proxied(noProxy: string | string[], url: string): boolean {
  const proxy = checkProxyOptions({ https: 'http://proxy:3128', http: 'http://proxy:3128', noProxy }, 'proxy');
  return proxyFor(proxy, new URL(url)) !== undefined;
}

test('noProxy matches hosts, domains with or without a leading dot, host:port and *, as curl does', () => {
  assert.equal(proxied('ehr.example.org', 'https://ehr.example.org/r4'), false);
  assert.equal(proxied('ehr.example.org', 'https://lab.example.org/r4'), true);
  for (const domain of ['example.org', '.example.org', '*.example.org', 'EXAMPLE.org.']) {
    assert.equal(proxied(domain, 'https://example.org/'), false, domain);
    assert.equal(proxied(domain, 'https://fhir.ehr.example.org/'), false, domain);
    assert.equal(proxied(domain, 'https://badexample.org/'), true, `${domain} does not match badexample.org`);
  }
  assert.equal(proxied('ehr.example.org:8443', 'https://ehr.example.org:8443/'), false);
  assert.equal(proxied('ehr.example.org:8443', 'https://ehr.example.org/'), true, 'another port');
  assert.equal(proxied('ehr.example.org:443', 'https://ehr.example.org/'), false, 'the default port counts');
  assert.equal(proxied('lab.local:80', 'http://lab.local/fhir'), false);
  assert.equal(proxied('*', 'https://anything.example.com/'), false);
  assert.equal(proxied(['10.0.0.7', '::1'], 'http://10.0.0.7:8080/'), false);
  assert.equal(proxied(['10.0.0.7', '::1'], 'http://[::1]:8080/'), false);
  assert.equal(proxied('[::1]:8080', 'http://[::1]:8080/'), false);
  assert.equal(proxied('[::1]:8080', 'http://[::1]:9090/'), true);
  assert.equal(proxied('localhost, 127.0.0.1  .internal', 'https://fhir.internal/'), false, 'commas and spaces both separate');
  assert.equal(proxied('', 'https://fhir.internal/'), true);
});

test('only the schemes with a proxy go through one', () => {
  const proxy = checkProxyOptions({ https: 'http://proxy:3128' }, 'proxy');
  assert.equal(proxyFor(proxy, new URL('http://lab.local/')), undefined);
  assert.equal(proxyFor(proxy, new URL('https://lab.local/'))?.origin, 'http://proxy:3128');
  assert.equal(checkProxyOptions({ noProxy: '*' }, 'proxy'), undefined, 'no proxy URL: no proxy');
});

test('proxy credentials become a Basic Proxy-Authorization value, percent-decoded, never in the origin', () => {
  const proxy = checkProxyOptions({ https: 'http://gate%40way:p%3Ass@proxy.local:3128' }, 'proxy');
  assert.equal(proxy?.https?.authorization, `Basic ${Buffer.from('gate@way:p:ss').toString('base64')}`);
  assert.equal(proxy?.https?.origin, 'http://proxy.local:3128');
  assert.equal(checkProxyOptions({ https: 'proxy.local:3128' }, 'proxy')?.https?.port, 3128, 'host:port without a scheme, as some HTTPS_PROXY values are written');
  assert.throws(() => checkProxyOptions({ https: 'http://u:%zz@proxy:3128' }, 'proxy'), (err: Error) => err instanceof TypeError && !err.message.includes('%zz'));
});
