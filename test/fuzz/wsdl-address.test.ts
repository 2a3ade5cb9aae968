/**
 * Fuzz: the WSDL's `soap:address` under random `Host`, `X-Forwarded-Host` and `X-Forwarded-Proto` values
 * (issue 13, item 4). Without `trustProxy` it is always the listening address (or the configured
 * `publicUrl`); with `trustProxy` + `allowedHosts` it names a caller's host only when that host is
 * allowed, and then exactly that host.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { ServiceAPIOptions } from '../../src/host/index.js';
import { NoteReaderService } from '../../src/soap/service.js';
import { child } from '../../src/soap/xml-tree.js';
import { parse } from '../support/soap-client.js';
import { startApp } from '../support/serve.js';
import { runFuzz } from './lib/fuzz.js';
import type { Random } from './lib/random.js';
import { rawExchange } from './lib/raw-http.js';

const ALLOWED = ['gw.example.org', 'alt.example.org:8443'];
/** Near misses of the allowed hosts, and hosts an attacker would name. */
const HOSTILE = [
  'evil.example', 'evil.example:9999', 'gw.example.org.evil.example', 'evil.example/gw.example.org', 'gw.example.org@evil.example',
  'user:pw@gw.example.org', 'gw.example.org/path', 'gw.example.org?x', 'gw.example.org#x', 'xgw.example.org', 'gw.example.org.',
  'alt.example.org', 'alt.example.org:8444', 'alt.example.org:8443x', '[::1]', '127.0.0.1', 'localhost', '', ' ', 'gw example.org',
  'javascript:alert(1)', '"gw.example.org"', 'gw.example.org, evil.example', 'evil.example, gw.example.org',
];

interface Headers {
  readonly host: string | undefined;
  readonly forwardedHost: string | undefined;
  readonly forwardedProto: string | undefined;
}

/** A header value: an allowed host (as is, in upper case, with a port), a hostile one, or random text; never CR or LF. */
function hostValue(rng: Random): string {
  const roll = rng.int(10);
  const value = roll < 3 ? rng.pick(ALLOWED) : roll < 4 ? rng.pick(ALLOWED).toUpperCase() : roll < 5 ? `gw.example.org:${rng.int(70000)}` : roll < 8 ? rng.pick(HOSTILE) : rng.string(rng.size(40));
  return (rng.chance(0.2) ? rng.mutate(value) : value).replace(/[\r\n]/g, '');
}

function headers(rng: Random): Headers {
  return {
    host: rng.chance(0.95) ? hostValue(rng) : undefined,
    forwardedHost: rng.chance(0.7) ? hostValue(rng) : undefined,
    forwardedProto: rng.chance(0.6) ? rng.pick(['https', 'http', 'HTTPS', 'ftp', 'javascript', '', rng.string(rng.size(10)).replace(/[\r\n]/g, '')]) : undefined,
  };
}

/** HTTP/1.0, so that the WSDL comes back delimited by the close, not chunked (what rawExchange reads). */
function request({ host, forwardedHost, forwardedProto }: Headers): Buffer {
  const lines = ['GET /notereader?wsdl HTTP/1.0'];
  if (host !== undefined) lines.push(`Host: ${host}`);
  if (forwardedHost !== undefined) lines.push(`X-Forwarded-Host: ${forwardedHost}`);
  if (forwardedProto !== undefined) lines.push(`X-Forwarded-Proto: ${forwardedProto}`);
  lines.push('Connection: close', '', '');
  return Buffer.from(lines.join('\r\n'), 'utf8');
}

/** The WSDL's `soap:address`, or `undefined` when Node's HTTP parser refused the request (400). */
async function wsdlAddress(port: number, sent: Headers): Promise<string | undefined> {
  const answer = await rawExchange(port, request(sent));
  if (answer.status === 400) return undefined;
  assert.equal(answer.status, 200);
  return child(child(child(parse(answer.body.toString('utf8')), 'service'), 'port'), 'address')?.attributes.location;
}

async function served(t: TestContext, options: ServiceAPIOptions): Promise<{ port: number; listening: string }> {
  const { base } = await startApp(t, options, (app) => app.registerService(new NoteReaderService().method('ProcessDocument', () => 'ok')));
  return { port: Number(new URL(base).port), listening: `${base}/notereader` };
}

test('fuzz: without trustProxy, no Host / X-Forwarded-* value reaches the WSDL address', async (t) => {
  const plain = await served(t, {});
  const configured = await served(t, { publicUrl: 'https://soap.example.org/base' });
  let answered = 0;
  await runFuzz({ seed: 0x4057, iterations: 300 }, {
    generate: headers,
    async check(sent) {
      const a = await wsdlAddress(plain.port, sent);
      const b = await wsdlAddress(configured.port, sent);
      if (a !== undefined) assert.equal(a, plain.listening);
      if (b !== undefined) assert.equal(b, 'https://soap.example.org/base/notereader');
      if (a !== undefined) answered++;
    },
  });
  assert.ok(answered > 150, `most requests are answered, not refused by the HTTP parser: ${answered} of 300`);
});

test('fuzz: with trustProxy + allowedHosts, the WSDL names a caller\'s host only when it is allowed', async (t) => {
  const proxy = await served(t, { trustProxy: true, allowedHosts: ALLOWED });
  let forwarded = 0;
  let listening = 0;
  await runFuzz({ seed: 0x7e57, iterations: 400 }, {
    generate: headers,
    async check(sent) {
      const location = await wsdlAddress(proxy.port, sent);
      if (location === undefined) return;
      if (location === proxy.listening) {
        listening++;
      } else {
        forwarded++;
        const url = new URL(location);
        assert.ok(url.protocol === 'https:' || url.protocol === 'http:', location);
        assert.equal(url.username + url.password + url.search + url.hash, '', location);
        assert.equal(url.pathname, '/notereader', location);
        const host = url.host.toLowerCase();
        assert.ok(ALLOWED.includes(host) || ALLOWED.includes(url.hostname), `a host outside allowedHosts reached the WSDL: ${location}`);
      }
      // A forwarded host that is exactly an allowed one, sent with https, is used as is.
      const named = sent.forwardedHost?.trim();
      if (named !== undefined && ALLOWED.includes(named) && sent.forwardedProto === 'https') assert.equal(location, `https://${named}/notereader`);
    },
  });
  assert.ok(forwarded > 20 && listening > 20, `both outcomes are exercised: ${forwarded} forwarded, ${listening} listening`);
});
