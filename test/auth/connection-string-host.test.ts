/**
 * The host of a `fhir://` string (issue 13): the URL parser accepts characters no DNS name holds (`+`,
 * `!`, `$`...), which then surfaced only in a later `ERR_NETWORK`. The parser refuses them at once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConnectionString } from '../../src/auth/index.js';

test('a host with + or another character no host name holds is ERR_CONNECTION_STRING, without quoting it', () => {
  for (const host of ['a+b.example.org', 'fhir+x', 'a!b', 'a$b.org', "a'b", 'a*b', 'a,b', 'a;b', 'a&b', 'a=b', 'a(b)', '-lead', 'trail-', 'a..b']) {
    assert.throws(() => parseConnectionString(`fhir://${host}/r4`), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ERR_CONNECTION_STRING', host);
      assert.ok(!err.message.includes(host), err.message);
      return true;
    }, host);
  }
});

test('DNS names, IDN, underscores, IPv4 and [IPv6] with ports still parse', () => {
  const cases: [string, string][] = [
    ['fhir.example.org', 'https://fhir.example.org/r4'],
    ['FHIR.Example.org:8443', 'https://fhir.example.org:8443/r4'],
    ['b\u00fccher.example', 'https://xn--bcher-kva.example/r4'],
    ['fhir_server', 'https://fhir_server/r4'],
    ['127.0.0.1:8080', 'http://127.0.0.1:8080/r4'],
    ['[::1]:8080', 'http://[::1]:8080/r4'],
    ['[2001:db8::1]', 'https://[2001:db8::1]/r4'],
  ];
  for (const [host, baseUrl] of cases) assert.equal(parseConnectionString(`fhir://${host}/r4`).baseUrl, baseUrl, host);
});
