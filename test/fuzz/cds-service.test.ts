/**
 * Fuzz: the CDS Hooks POST routes (service call and feedback) end to end through the service's mountable
 * face: random content types, service ids and mutated bodies are answered 200 or with a JSON client error
 * (400, 404, 412, 413, 415); never a 500 while the handlers behave. One service has prefetch templates
 * that fetch from a local FHIR stand-in, so that context values reach template rendering.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { CDSHooksService } from '../../src/cds/index.js';
import { MOUNT } from '../../src/mount/index.js';
import { runFuzz } from './lib/fuzz.js';
import type { Random } from './lib/random.js';
import { fakeRequest } from '../support/route-request.js';

const CALL = {
  hook: 'patient-view',
  hookInstance: 'd1577c69-dfbe-44ad-ba6d-3e05e953b2ea',
  context: { userId: 'Practitioner/1', patientId: 'p1' },
  prefetch: { patient: { resourceType: 'Patient', id: 'p1' } },
};
/** A call to the service with prefetch templates; `fhirServer` is set per run. */
const TEMPLATED_CALL = {
  hook: 'chart-open',
  hookInstance: 'a1577c69-dfbe-44ad-ba6d-3e05e953b2eb',
  context: { userId: 'Patient/u1', patientId: 'p1', code: 'http://loinc.org|8867-4' },
  fhirAuthorization: { access_token: 'tok', token_type: 'Bearer', expires_in: 300, scope: 'patient/*.read', subject: 'cds' },
};
const TEMPLATES = { patient: 'Patient/{{context.patientId}}', vitals: 'Observation?code={{context.code}}&subject={{userPatientId}}' };
const FEEDBACK = { feedback: [{ card: 'c1', outcome: 'accepted', acceptedSuggestions: [{ id: 's1' }], outcomeTimestamp: '2026-01-01T10:00:00Z' }] };
const BODY_LIMIT = 16 * 1024;

interface Call {
  feedback: boolean;
  id: string;
  contentType: string | undefined;
  body: Buffer[];
}

function generate(rng: Random, fhirServer: string): Call {
  const feedback = rng.chance(0.25);
  const templated = !feedback && rng.chance(0.35);
  const base = feedback ? FEEDBACK : templated ? { ...TEMPLATED_CALL, fhirServer, context: { ...TEMPLATED_CALL.context } } : CALL;
  // Regression: a lone surrogate (a `\ud800` JSON escape) in a value a prefetch template renders gave a 500.
  if (templated && rng.chance(0.1)) (base as typeof TEMPLATED_CALL).context[rng.pick(['patientId', 'code', 'userId'] as const)] = rng.pick(['\ud800', 'Patient/\udc00', 'a\ud83d']);
  const value = rng.chance(0.9) ? rng.mutateJson(base) : rng.json();
  const text = Buffer.from(JSON.stringify(value) ?? 'null');
  const body = rng.chance(0.1) ? rng.mutateBytes(text) : rng.chance(0.02) ? Buffer.alloc(BODY_LIMIT + 1, 0x20) : text;
  return {
    feedback,
    id: rng.chance(0.9) ? (templated ? 'chart' : 'greet') : rng.pick(['other', '', '__proto__', 'constructor', Buffer.from(rng.string(8)).toString()]),
    contentType: rng.chance(0.9) ? rng.pick(['application/json', 'application/fhir+json; charset=utf-8', 'APPLICATION/JSON']) : rng.pick([undefined, 'text/plain', 'application/jsonx', '']),
    body: rng.pieces(body),
  };
}

test('CDS service calls and feedback with mutated bodies get 200 or a JSON client error', async (t) => {
  const fhir = createServer((req, res) => {
    const found = req.url?.startsWith('/Patient/') === true;
    res.writeHead(found ? 200 : 404, { 'content-type': 'application/fhir+json' });
    res.end(JSON.stringify(found ? { resourceType: 'Patient', id: 'p1' } : { resourceType: 'OperationOutcome', issue: [] }));
  });
  await new Promise<void>((resolve) => fhir.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => fhir.close(() => resolve())));
  const fhirServer = `http://127.0.0.1:${(fhir.address() as AddressInfo).port}/`;
  await runFuzz({ seed: 0xc4115, iterations: 1500 }, {
    generate: (rng) => generate(rng, fhirServer),
    async check(call) {
      // The fake FHIR server is on loopback: named in fhirServers so that prefetch may reach it.
      const cds = new CDSHooksService({ bodyLimit: BODY_LIMIT, fhirServers: [fhirServer], dispatcher: { emit() {}, register: () => () => {}, drain: async () => {} } });
      const card = (text: string) => ({ cards: [{ summary: `Hello ${text.slice(0, 20)}`, indicator: 'info' as const, source: { label: 'fuzz' } }] });
      cds.hook('patient-view', { id: 'greet', description: 'Greets' }, (req) => card(String(req.context.patientId)));
      cds.hook('chart-open', { id: 'chart', description: 'Prefetches', prefetch: TEMPLATES }, (req) => card(String(req.prefetch.patient?.id)));
      const path = call.feedback ? '/cds-services/:id/feedback' : '/cds-services/:id';
      const route = cds[MOUNT]().routes().find((r) => r.method === 'POST' && r.path === path);
      assert.ok(route !== undefined);
      const headers = call.contentType === undefined ? {} : { 'content-type': call.contentType };
      const reply = await route.handle(fakeRequest({ method: 'POST', requestId: 'fuzz', url: `http://127.0.0.1/cds/cds-services/${encodeURIComponent(call.id)}`, headers, body: call.body, params: { id: call.id } }));
      assert.ok([200, 400, 404, 412, 413, 415].includes(reply.status ?? 200), `status ${reply.status}: ${String(reply.body).slice(0, 300)}`);
      const answer = JSON.parse(String(reply.body)) as { cards?: unknown[]; error?: { code: string; message: string } };
      if ((reply.status ?? 200) === 200) {
        if (!call.feedback) assert.equal(answer.cards?.length, 1);
      } else {
        assert.match(answer.error?.code ?? '', /^ERR_/);
      }
    },
  });
});
