// A credential is found in whatever form an upstream sends it back, and only the credential.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CredentialEcho } from '../../src/lib/credential-echo.js';

const TOKEN = 'eyJhbGciOi.J9-x_y~z+/=';

test('a credential is found raw, JSON-escaped, percent-encoded (nested), as character references, hex, base64 and base64url at any alignment', () => {
  const echo = new CredentialEcho(TOKEN);
  const forms = [
    `auth: Bearer ${TOKEN}`,
    `"${[...TOKEN].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`,
    encodeURIComponent(TOKEN),
    encodeURIComponent(encodeURIComponent(TOKEN)).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    [...TOKEN].map((c) => `&#${c.charCodeAt(0)};`).join(''),
    [...TOKEN].map((c) => `&#x${c.charCodeAt(0).toString(16)}`).join(''),
    Buffer.from(TOKEN).toString('hex').toUpperCase(),
    ...[0, 1, 2].flatMap((pad) => [Buffer.from(`${'B'.repeat(pad)}${TOKEN}tail`).toString('base64'), Buffer.from(`${'B'.repeat(pad)}${TOKEN}`).toString('base64url')]),
    Buffer.from(`Authorization: Bearer ${TOKEN}`).toString('base64').replace(/(.{8})/g, '$1\\n'),
  ];
  for (const form of forms) assert.ok(echo.in(form), form);
  assert.ok(!echo.in(`Bearer ${TOKEN.slice(0, -1)}`), 'a token cut short is not the token');
  assert.ok(!echo.in(Buffer.from(`Bearer ${TOKEN.slice(1)}`).toString('base64')), 'nor another text in base64');
  assert.throws(() => new CredentialEcho('short'), RangeError);
});
