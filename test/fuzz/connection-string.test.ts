/**
 * Fuzz: `parseConnectionString` on random and mutated `fhir://` strings. It returns a config or throws
 * `ERR_CONNECTION_STRING`, nothing else, and its message never quotes a parameter value (secrets are
 * generated with a marker and searched for).
 */
import assert from 'node:assert/strict';
import { parseConnectionString } from '../../src/auth/index.js';
import { fuzz, settle } from './lib/fuzz.js';
import type { Random } from './lib/random.js';

const MARKER = 'zzSECRETzz';
const NAMES = [
  'client_id', 'token_url', 'client_secret', 'client_secret_path', 'scope', 'use_jwt_assertion', 'audience', 'key_id',
  'jku', 'next_key_path', 'next_key_id', 'auth_method', 'timeout', 'allow_http',
];
const HOSTS = ['fhir.example.org', 'localhost:8080', '127.0.0.1:9', '[::1]:443', 'a.localhost', 'x:99999', 'h_st', '', 'u:p@h', '[::1', '%41', 'a+b.example.org', 'h!st', 'h$t', 'h*st:80'];
const VALUES: Readonly<Record<string, readonly string[]>> = {
  token_url: ['https://auth.example.org/token', 'http://localhost/t', 'http://evil.example/t', 'https://u:p@h/t', '/relative', 'ftp://x'],
  jku: ['https://app.example.org/jwks.json', 'http://x/jwks', 'notaurl'],
  use_jwt_assertion: ['true', 'false', 'TRUE', 'yes'],
  allow_http: ['true', 'false', '1'],
  auth_method: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
  timeout: ['30', '0.5', '0', '-1', '1e3', 'NaN', '99999999999999999999'],
  client_secret_path: ['key.pem', '/etc/keys/k.json'],
  next_key_path: ['next.pem', '/etc/keys/next.json'],
};

/** A secret with the marker, partly percent-encoded now and then. */
function secret(rng: Random): string {
  const raw = `${MARKER}${rng.int(1e9)}${rng.string(rng.int(6), 'abcXYZ019-_.~')}`;
  if (!rng.chance(0.3)) return raw;
  return [...raw].map((c) => (rng.chance(0.3) ? `%${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c)).join('');
}

function value(rng: Random, name: string): string {
  if (name === 'client_secret' || rng.chance(0.1)) return secret(rng);
  const known = VALUES[name];
  if (known !== undefined && rng.chance(0.8)) return encodeURIComponent(rng.pick(known));
  const text = rng.string(rng.size(30));
  return rng.chance(0.7) ? encodeURIComponent(Buffer.from(text).toString()) : text;
}

/** Parameter names: mostly distinct known ones, now and then a repeat or an unknown one. */
function names(rng: Random): string[] {
  const pool = [...NAMES];
  const out: string[] = [];
  for (let n = rng.int(8); n > 0; n--) {
    if (rng.chance(0.9)) out.push(...pool.splice(rng.int(pool.length), 1));
    else out.push(rng.chance(0.5) ? rng.pick(NAMES) : rng.string(rng.size(12)));
  }
  if (rng.chance(0.5)) out.push(...['client_id', 'token_url', 'client_secret'].filter((n) => !out.includes(n)));
  return out;
}

function generate(rng: Random): string {
  const scheme = rng.chance(0.95) ? 'fhir://' : rng.pick(['FHIR://', 'https://', 'fhir:/', '', ' fhir://']);
  const host = rng.chance(0.85) ? rng.pick(HOSTS) : rng.string(rng.size(20));
  const path = rng.pick(['', '/', '/r4/', '/api/FHIR/R4', `/${rng.string(rng.size(20))}`]);
  const query = names(rng).map((n) => (rng.chance(0.97) ? `${n}=${value(rng, n)}` : n)).join('&');
  const text = `${scheme}${host}${path}${query === '' && rng.chance(0.5) ? '' : `?${query}`}${rng.chance(0.03) ? '#frag' : ''}`;
  return rng.chance(0.4) ? rng.mutate(text) : text;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * True when the marker shows anywhere but in a parameter value: in the authority, the path, the fragment
 * or a parameter name (raw or decoded). The parser may quote those; it must not quote values.
 */
function markerOutsideValues(text: string): boolean {
  const q = text.indexOf('?');
  const head = q === -1 ? text : text.slice(0, q);
  const [query = '', ...fragment] = (q === -1 ? '' : text.slice(q + 1)).split('#');
  if (head.includes(MARKER) || fragment.join('#').includes(MARKER)) return true;
  return query.split('&').some((piece) => {
    const eq = piece.indexOf('=');
    const name = eq === -1 ? piece : piece.slice(0, eq);
    return name.includes(MARKER) || decoded(name).includes(MARKER);
  });
}

fuzz('parseConnectionString returns a config or throws ERR_CONNECTION_STRING, never quoting a value', { seed: 0xc0ffee, iterations: 4000 }, {
  generate,
  check(text) {
    return settle(['ERR_CONNECTION_STRING'], () => parseConnectionString(text)).then((outcome) => {
      if (outcome.ok) {
        const { baseUrl, origin } = outcome.value;
        assert.ok(baseUrl.startsWith(`${origin}`), 'baseUrl lies under origin');
        assert.match(origin, /^https?:\/\/[^/]+$/);
        const host = new URL(origin).hostname;
        assert.ok(host.startsWith('[') || /^[a-z0-9_.-]+$/.test(host), `an accepted host holds only host-name characters: ${host}`);
        assert.ok(!baseUrl.endsWith('/'), 'baseUrl has no trailing slash');
        return;
      }
      assert.ok(outcome.error.message.startsWith('invalid connection string: '), outcome.error.message);
      if (!markerOutsideValues(text)) assert.ok(!outcome.error.message.includes(MARKER), `message quotes a value: ${outcome.error.message}`);
    });
  },
});

fuzz('parseConnectionString survives arbitrary text after fhir://', { seed: 77, iterations: 3000 }, {
  generate: (rng) => `fhir://${rng.string(rng.size(300), '/?#&=%:@[]._-abcAZ09 ')}`,
  check: async (text) => void (await settle(['ERR_CONNECTION_STRING'], () => parseConnectionString(text))),
});

/** Characters a URL authority may carry (RFC 3986 sub-delims) that no host name holds. */
const NOT_IN_HOST_NAMES = "+!$'()*,;=";

/** A valid connection string with a random host name, and the same with one character no host name holds put into the host. */
function hostWithForeignChar(rng: Random): { clean: string; dirty: string; host: string } {
  const letters = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const label = () => Array.from({ length: 1 + rng.int(10) }, () => rng.pick([...letters])).join('');
  // The last label starts with a letter: a numeric one makes WHATWG URL read the host as IPv4.
  const name = [...Array.from({ length: rng.int(3) }, label), `${rng.pick([...letters.slice(0, 26)])}${label()}`].join('.');
  const at = rng.int(name.length + 1);
  const host = `${name.slice(0, at)}${rng.pick([...NOT_IN_HOST_NAMES])}${name.slice(at)}`;
  const port = rng.chance(0.5) ? `:${1 + rng.int(65535)}` : '';
  const path = rng.pick(['/', '/fhir/', '/api/FHIR/R4']);
  const query = rng.pick(['', `?client_id=app&client_secret=${MARKER}${rng.int(1e9)}&token_url=${encodeURIComponent('https://auth.example.org/token')}`]);
  const cs = (h: string) => `fhir://${h}${port}${path}${query}`;
  return { clean: cs(name), dirty: cs(host), host };
}

fuzz('a fhir:// host holding + or another character no host name holds is ERR_CONNECTION_STRING, the host never quoted', { seed: 0x2b05, iterations: 1500 }, {
  generate: hostWithForeignChar,
  async check({ clean, dirty, host }) {
    assert.ok(parseConnectionString(clean).origin.startsWith('https://'), 'the string without the character is valid');
    const outcome = await settle(['ERR_CONNECTION_STRING'], () => parseConnectionString(dirty));
    assert.ok(!outcome.ok, `accepted a host holding a character no host name holds: ${outcome.ok ? outcome.value.origin : ''}`);
    assert.ok(!outcome.error.message.includes(host), `message quotes the host: ${outcome.error.message}`);
    assert.ok(!outcome.error.message.includes(MARKER), `message quotes the secret: ${outcome.error.message}`);
  },
});
