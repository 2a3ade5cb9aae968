/** Fuzz: `SecretRedactor` leaves no form of a random secret (raw, percent-, form-, JSON-encoded, Basic) in a random echo. */
import assert from 'node:assert/strict';
import { REDACTED, SecretRedactor } from '../../src/lib/redact-secrets.js';
import { fuzz } from './lib/fuzz.js';

const SECRET_ALPHABET = 'abcXYZ019-_.~+/=%&:@ "\'\\é\u0000';

fuzz('fuzz: SecretRedactor leaves no form of a random secret in a random echo, and cuts after redacting', { seed: 0x5ec2e7, iterations: 1500 }, {
  generate(rng) {
    // Connection-string secrets are decoded text: no lone surrogate (which has no percent-encoded form).
    const wellFormed = (s: string): string => s.replace(/[\uD800-\uDFFF]/g, 'x');
    const secret = wellFormed(rng.string(1 + rng.int(24), SECRET_ALPHABET));
    const id = wellFormed(rng.string(1 + rng.int(10), SECRET_ALPHABET));
    const form = new URLSearchParams([['', secret]]).toString().slice(1);
    const lowHex = (s: string): string => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
    const forms = [secret, encodeURIComponent(secret), form, lowHex(form), lowHex(encodeURIComponent(secret)), JSON.stringify(secret).slice(1, -1),
      Buffer.from(`${new URLSearchParams([['', id]]).toString().slice(1)}:${form}`).toString('base64'), Buffer.from(`${id}:${secret}`).toString('base64')];
    const echo = Array.from({ length: 1 + rng.int(5) }, () => `${rng.string(rng.int(20))}${rng.pick(forms)}`).join('');
    return { secret, id, forms, echo, max: rng.chance(0.5) ? Infinity : 1 + rng.int(120) };
  },
  check({ secret, id, forms, echo, max }) {
    const out = new SecretRedactor({ secrets: [secret], basic: [[id, secret]] }).text(echo, max);
    assert.ok(out.length <= max);
    // Between the markers (and the cut), no form is left: split on the marker, check every piece.
    for (const piece of out.replace(/…$/, '').split(REDACTED)) {
      for (const f of forms) if (f.length >= 3) assert.ok(!piece.includes(f), `${JSON.stringify(f)} left in ${JSON.stringify(piece)}`);
    }
  },
});
