/**
 * Fuzz: CDS Hooks request, feedback and card validation on random JSON and on mutations of valid bodies.
 * Each either succeeds or throws its own coded error (`ERR_CDS_REQUEST` 400, `ERR_CDS_CARD` 500) naming
 * the field at fault; never a `TypeError`.
 */
import assert from 'node:assert/strict';
import { CDSError, CDSHooksService } from '../../src/cds/index.js';
import { validateFeedback } from '../../src/cds/feedback.js';
import { validateResponse } from '../../src/cds/validate-card.js';
import { parseJSONObject, validateRequest } from '../../src/cds/validate-request.js';
import { fuzz, settle } from './lib/fuzz.js';
import type { Outcome } from './lib/fuzz.js';
import { NASTY_CHARS } from './lib/random.js';
import type { Random } from './lib/random.js';

const BUNDLE = { resourceType: 'Bundle', type: 'collection', entry: [{ resource: { resourceType: 'MedicationRequest', id: 'm1' } }] };
const CONTEXTS: Readonly<Record<string, Record<string, unknown>>> = {
  'patient-view': { userId: 'Practitioner/123', patientId: '1288992', encounterId: '89284' },
  'order-select': { userId: 'PractitionerRole/1', patientId: 'p1', selections: ['MedicationRequest/m1'], draftOrders: BUNDLE },
  'order-sign': { userId: 'Practitioner/1', patientId: 'p1', draftOrders: BUNDLE },
  'encounter-start': { userId: 'Practitioner/1', patientId: 'p1', encounterId: 'e1' },
  'encounter-discharge': { userId: 'Practitioner/1', patientId: 'p1', encounterId: 'e1' },
  'appointment-book': { userId: 'Patient/1', patientId: 'p1', appointments: { resourceType: 'Bundle', type: 'collection' } },
  'my-own-hook': { anything: [1, 2, 3] },
};

function validRequest(rng: Random, hook: string): Record<string, unknown> {
  return {
    hook,
    hookInstance: 'd1577c69-dfbe-44ad-ba6d-3e05e953b2ea',
    fhirServer: 'https://fhir.example.org/r4',
    fhirAuthorization: { access_token: 'tok', token_type: 'Bearer', expires_in: 300, scope: 'patient/*.read', subject: 'cds', ...(rng.chance(0.5) ? { patient: 'p1' } : {}) },
    context: structuredClone(Object.hasOwn(CONTEXTS, hook) ? CONTEXTS[hook] : {}),
    prefetch: { patient: { resourceType: 'Patient', id: 'p1' }, missing: null },
  };
}

const VALID_CARD = {
  uuid: 'c1',
  summary: 'Flu shot due',
  detail: '**now**',
  indicator: 'warning',
  source: { label: 'Rules', url: 'https://rules.example', icon: 'https://rules.example/i.png', topic: { system: 's', code: 'c', display: 'd' } },
  suggestions: [{
    label: 'Order it',
    uuid: 's1',
    isRecommended: true,
    actions: [
      { type: 'create', description: 'new order', resource: { resourceType: 'ServiceRequest' } },
      { type: 'delete', description: 'drop', resourceId: ['MedicationRequest/m1'] },
    ],
  }],
  selectionBehavior: 'at-most-one',
  overrideReasons: [{ code: 'x', display: 'Patient refused' }],
  links: [{ label: 'App', url: 'https://app.example/launch', type: 'smart', appContext: '{"a":1}' }, { label: 'Doc', url: 'https://doc.example', type: 'absolute' }],
};

const VALID_FEEDBACK = {
  feedback: [
    { card: 'c1', outcome: 'accepted', acceptedSuggestions: [{ id: 's1' }], outcomeTimestamp: '2026-01-01T10:00:00Z' },
    { card: 'c2', outcome: 'overridden', overrideReason: { reason: { code: 'x', display: 'y' }, userComment: 'no' }, outcomeTimestamp: '2026-01-01T10:00:00.5+01:00' },
  ],
};

/** A JSON value round-tripped through text, as a request body would be: `__proto__` stays an own member. */
const asParsed = (value: unknown): unknown => JSON.parse(JSON.stringify(value) ?? 'null');

/** A validation failure must be a CDSError with the code and status of its kind, and name a field. */
function checkFailure(outcome: Outcome<unknown>, status: number): void {
  if (outcome.ok) return;
  const { error } = outcome;
  assert.ok(error instanceof CDSError, `${error.name} is not a CDSError`);
  assert.equal(error.status, status);
  assert.ok(error.field === undefined || error.message.startsWith(error.field), `message "${error.message}" names field ${error.field}`);
}

const HOOKS = [...Object.keys(CONTEXTS)];

fuzz('validateRequest accepts or rejects mutated requests with ERR_CDS_REQUEST only', { seed: 0xcd5, iterations: 2000 }, {
  generate(rng) {
    const hook = rng.chance(0.9) ? rng.pick(HOOKS) : rng.pick(NASTY_CHARS.filter((c) => /^[^\s/]+$/.test(c)));
    const body = rng.chance(0.1) ? rng.json() : rng.mutateJson(validRequest(rng, hook));
    return { hook, body: asParsed(body) };
  },
  async check({ hook, body }) {
    const outcome = await settle(['ERR_CDS_REQUEST'], () => {
      const parsed = parseJSONObject(Buffer.from(JSON.stringify(body)));
      return validateRequest(parsed, hook);
    });
    checkFailure(outcome, 400);
    if (outcome.ok) assert.equal(outcome.value.hook, hook);
  },
});

fuzz('a service registered on any hook name validates its requests without a TypeError', { seed: 0xb00c, iterations: 300 }, {
  generate: (rng) => {
    const hook = rng.pick(NASTY_CHARS.filter((c) => /^[^\s/]+$/.test(c)));
    return { hook, body: asParsed({ ...validRequest(rng, 'my-own-hook'), hook }) as Record<string, unknown> };
  },
  async check({ hook, body }) {
    const cds = new CDSHooksService();
    cds.hook(hook, { id: 'svc', description: 'any hook', prefetch: { patient: 'Patient/{{context.patientId}}' } }, () => ({ cards: [] }));
    assert.deepEqual(cds.discovery().services.map((s) => s.hook), [hook]);
    const outcome = await settle(['ERR_CDS_REQUEST'], () => validateRequest(body, hook));
    assert.ok(outcome.ok, 'a request with the right hook, a UUID and an object context is valid for a hook fhirgate does not know');
  },
});

fuzz('parseJSONObject turns any bytes into an object or ERR_CDS_REQUEST', { seed: 0x1550, iterations: 1500 }, {
  generate: (rng) => (rng.chance(0.3) ? rng.bytes() : rng.mutateBytes(Buffer.from(JSON.stringify(validRequest(rng, 'patient-view'))))),
  async check(bytes) {
    const outcome = await settle(['ERR_CDS_REQUEST'], () => parseJSONObject(bytes));
    checkFailure(outcome, 400);
    if (outcome.ok) assert.ok(typeof outcome.value === 'object' && outcome.value !== null && !Array.isArray(outcome.value));
  },
});

fuzz('validateResponse accepts or rejects mutated card answers with ERR_CDS_CARD only', { seed: 0xca4d, iterations: 2000 }, {
  generate: (rng) => asParsed(rng.chance(0.1) ? rng.json() : rng.mutateJson({ cards: [structuredClone(VALID_CARD), { summary: 's', indicator: 'info', source: { label: 'l' } }], systemActions: [] })),
  async check(value) {
    const outcome = await settle(['ERR_CDS_CARD'], () => validateResponse(value));
    checkFailure(outcome, 500);
    if (outcome.ok) for (const card of outcome.value.cards) assert.equal(typeof card.uuid, 'string');
  },
});

fuzz('validateFeedback accepts or rejects mutated feedback with ERR_CDS_REQUEST only', { seed: 0xfeed, iterations: 1500 }, {
  generate: (rng) => asParsed(rng.chance(0.1) ? rng.json() : rng.mutateJson(VALID_FEEDBACK)) as Record<string, unknown>,
  async check(body) {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
    checkFailure(await settle(['ERR_CDS_REQUEST'], () => validateFeedback(body)), 400);
  },
});
