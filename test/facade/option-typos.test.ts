// Every option object of the facade refuses unknown keys with the nearest valid name, in
// `new FHIRFacade(...)` and in fhirgate.json: a typo fails closed instead of widening access
// (`"patinet": "123"` must not make a caller meant for one patient a caller for all of them). Every key
// the code knows is documented, and a one-letter typo of each is refused with the suggestion.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FACADE_SETTINGS } from '../../src/cli/config/facade-config.js';
import { validateConfig } from '../../src/cli/config/validate-config.js';
import { FHIRFacade } from '../../src/facade/index.js';
import type { FHIRFacadeOptions } from '../../src/facade/index.js';
import { OPTION_KEYS } from '../../src/facade/options.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { toPublicJWK } from '../../src/lib/jwt/keys.js';
import { ROOT } from '../support/run-cli.js';

const KEY = 'typo-test-key-0123456789';
const jwk = toPublicJWK(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey);
const DOCS = ['docs/facade.md', 'docs/cli.md'].map((page) => readFileSync(join(ROOT, page), 'utf8')).join('\n');

/** One letter of `key` changed (the middle one): an obvious typo. */
function typoOf(key: string): string {
  const i = Math.floor(key.length / 2);
  return `${key.slice(0, i)}${key[i] === 'q' ? 'z' : 'q'}${key.slice(i + 1)}`;
}

/** `base` with `key` written as `typo`. */
function misspelled(base: Record<string, unknown>, key: string, typo: string): Record<string, unknown> {
  const { [key]: value, ...rest } = base;
  return { ...rest, [typo]: value ?? 1 };
}

/**
 * Where each option object sits: its known keys, a valid one, and how it is placed in the library's options
 * and in fhirgate.json (`undefined`: not a setting of the file), with the path each error names.
 */
const PLACES: {
  readonly what: string;
  readonly keys: readonly string[];
  readonly base: Record<string, unknown>;
  readonly code?: (o: Record<string, unknown>) => unknown;
  readonly codePath: string;
  readonly file?: (o: Record<string, unknown>) => Record<string, unknown>;
  readonly filePath: string;
}[] = [
  { what: 'the options', keys: OPTION_KEYS.options, base: { federatedName: 'all' }, code: (o) => o, codePath: 'options', filePath: '' },
  { what: 'the facade section', keys: FACADE_SETTINGS, base: { enabled: true }, codePath: '', file: (o) => ({ facade: o }), filePath: 'facade' },
  {
    what: 'an API-key caller', keys: OPTION_KEYS.apiKeyCaller, base: { name: 'app', apiKey: KEY, scopes: 'system/*.rs' },
    code: (o) => ({ callers: [o] }), codePath: 'options.callers[0]', file: (o) => ({ callers: [o] }), filePath: 'callers[0]',
  },
  {
    what: 'an issuer', keys: OPTION_KEYS.issuerCallers, base: { issuer: 'https://idp.example.org', jwks: { keys: [jwk] }, audience: 'https://gw.example.org', scopes: 'system/*.rs' },
    code: (o) => ({ callers: [o] }), codePath: 'options.callers[0]', file: (o) => ({ callers: [o] }), filePath: 'callers[0]',
  },
  {
    what: 'a caller\'s rate', keys: OPTION_KEYS.rate, base: { perSecond: 5 },
    code: (rate) => ({ callers: [{ name: 'app', apiKey: KEY, scopes: 'system/*.rs', rate }] }), codePath: 'options.callers[0].rate',
    file: (rate) => ({ callers: [{ name: 'app', apiKey: KEY, scopes: 'system/*.rs', rate }] }), filePath: 'callers[0].rate',
  },
  {
    what: 'a source\'s limits', keys: OPTION_KEYS.limits, base: { perSecond: 5 },
    code: (l) => ({ limits: { ehr: l } }), codePath: 'options.limits.ehr', file: (l) => ({ facade: { limits: { ehr: l } } }), filePath: 'facade.limits.ehr',
  },
  {
    what: 'the other sources\' limits', keys: OPTION_KEYS.limits, base: { maxInFlight: 5 },
    code: (l) => ({ limits: { '*': l } }), codePath: 'options.limits.*', file: (l) => ({ facade: { limits: { '*': l } } }), filePath: 'facade.limits.*',
  },
  {
    what: 'the audit sink', keys: OPTION_KEYS.audit, base: { source: 'ehr' },
    code: (audit) => ({ audit }), codePath: 'options.audit', file: (audit) => ({ facade: { audit } }), filePath: 'facade.audit',
  },
];

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('every option key of the facade the code knows is documented in docs/facade.md or docs/cli.md', () => {
  const known = new Set([...Object.values(OPTION_KEYS).flat(), ...FACADE_SETTINGS]);
  assert.ok(known.size > 25, 'the lists were walked');
  const undocumented = [...known].filter((key) => !new RegExp(`\`${key}\`|"${key}"|\\b${key}:`).test(DOCS));
  assert.deepEqual(undocumented, []);
});

test('every option object, in code: a one-letter typo of each key is refused, naming it with the suggestion', (t) => {
  const gw = new AsyncFHIRGateway();
  t.after(() => gw.close());
  for (const place of PLACES) {
    if (place.code === undefined) continue;
    assert.doesNotThrow(() => new FHIRFacade(gw, place.code!(place.base) as FHIRFacadeOptions), `${place.what}: the valid one`);
    for (const key of place.keys) {
      const typo = typoOf(key);
      assert.throws(() => new FHIRFacade(gw, place.code!(misspelled(place.base, key, typo)) as FHIRFacadeOptions), {
        name: 'TypeError',
        message: new RegExp(`^${escape(`${place.codePath}.${typo}`)} is not an option; did you mean \`${key}\`\\?`),
      }, `${place.what}: ${typo}`);
    }
  }
});

test('every setting of fhirgate.json the facade reads: a one-letter typo of each key is an ERR_CONFIG naming its path and the suggestion', () => {
  const ctx = { dir: ROOT, env: {} };
  const callersTypo = typoOf('callers');
  assert.throws(() => validateConfig({ [callersTypo]: [] }, ctx), { code: 'ERR_CONFIG', message: new RegExp(`^${callersTypo}: unknown setting; .*did you mean \`callers\`\\?`) });
  for (const place of PLACES) {
    if (place.file === undefined) continue;
    assert.doesNotThrow(() => validateConfig(place.file!(place.base), ctx), `${place.what}: the valid one`);
    const keys = place.filePath === '' ? FACADE_SETTINGS : place.keys;
    for (const key of keys) {
      const typo = typoOf(key);
      assert.throws(() => validateConfig(place.file!(misspelled(place.base, key, typo)), ctx), {
        code: 'ERR_CONFIG',
        message: new RegExp(`^${escape(`${place.filePath}.${typo}`)}: .*did you mean \`${key}\`\\?`),
      }, `${place.what}: ${typo}`);
    }
  }
});

test('a caller meant for one patient with "patinet" is refused, never served for every patient', async (t) => {
  const gw = new AsyncFHIRGateway();
  t.after(() => gw.close());
  const caller = { name: 'portal', apiKey: KEY, sources: ['ehr'], scopes: 'patient/*.rs', patinet: '123' };
  assert.throws(() => new FHIRFacade(gw, { callers: [caller as never] }), { message: /options\.callers\[0\]\.patinet is not an option; did you mean `patient`\?/ });
  assert.throws(() => validateConfig({ callers: [caller] }, { dir: ROOT, env: {} }), { code: 'ERR_CONFIG', message: /^callers\[0\]\.patinet: not an option; did you mean `patient`\?/ });
  const { patinet: _, ...rest } = caller;
  const secretKey = { ...rest, patient: '123', [`x${KEY}`]: 1 };
  assert.throws(() => validateConfig({ callers: [secretKey] }, { dir: ROOT, env: {} }), (error: Error) => {
    assert.match(error.message, /^callers\[0\]: has an unknown option \(key 6\); the options are name, apiKey/);
    assert.ok(!error.message.includes(KEY), 'a key that is no near miss is not quoted: it may be a secret');
    return true;
  });
});

test('config errors inside callers name the setting\'s path, and the minimums', () => {
  const ctx = { dir: ROOT, env: {} };
  const app = { name: 'app', apiKey: KEY, scopes: 'system/*.rs' };
  const cases: [unknown, RegExp][] = [
    [{ ...app, apiKey: 'short' }, /^callers\[0\]\.apiKey: must be a string of at least 16 characters$/],
    [{ ...app, name: '' }, /^callers\[0\]\.name: must be a non-empty string$/],
    [{ ...app, scopes: 7 }, /^callers\[0\]\.scopes: must be a string of SMART scopes$/],
    [{ ...app, patient: 'no/slash' }, /^callers\[0\]\.patient: must be a FHIR id/],
    [{ ...app, rate: { perSecond: -1 } }, /^callers\[0\]\.rate\.perSecond: must be a finite number > 0$/],
    [{ ...app, rate: { burst: 4 } }, /^callers\[0\]\.rate\.perSecond: must be a number > 0$/],
    [{ ...app, allowReaching: 'yes' }, /^callers\[0\]\.allowReaching: must be a boolean$/],
    [{ issuer: 'https://idp.example.org', jwks: { keys: [] }, audience: 'x', scopes: '', maxTokenLifetimeSeconds: 0 }, /^callers\[0\]\.maxTokenLifetimeSeconds: must be an integer of seconds >= 1$/],
  ];
  for (const [caller, message] of cases) assert.throws(() => validateConfig({ callers: [caller] }, ctx), { code: 'ERR_CONFIG', message }, String(message));
  assert.throws(() => validateConfig({ callers: [app, { ...app, apiKey: `${KEY}2` }] }, ctx), { code: 'ERR_CONFIG', message: /^callers: the name "app" appears twice$/ });
  assert.throws(() => validateConfig({ facade: { pageTokenSecret: 'short' } }, ctx), { code: 'ERR_CONFIG', message: /^facade\.pageTokenSecret: must be a string of at least 32 characters$/ });
});
