import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test, type TestContext } from 'node:test';
import { CDSHooksService, type CDSCard, type JSONObject } from '../../src/cds/index.js';
import { captureLogger } from '../support/logger.js';
import { recordingDispatcher } from '../support/recording-dispatcher.js';
import { sandbox as testSandbox } from '../support/sandbox.js';
import { startApp } from '../support/serve.js';
import { rawToken, startCdsClient } from '../support/cds-client.js';
import { post } from './post-json.js';

/** An EHR-side access token from the sandbox's token endpoint (client_secret_basic). */
async function ehrToken(tokenUrl: string): Promise<string> {
  const response = await fetch(tokenUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from('fhirgate-demo:demo-secret').toString('base64')}`,
    },
    body: 'grant_type=client_credentials&scope=system%2F*.read',
  });
  assert.equal(response.status, 200);
  return ((await response.json()) as { access_token: string }).access_token;
}

function familyOf(patient: JSONObject | null | undefined): string {
  const names = patient?.name as Array<{ family?: string }> | undefined;
  return names?.[0]?.family ?? 'unknown';
}

async function setup(t: TestContext) {
  const sandbox = await testSandbox(t);
  const client = await startCdsClient(t);
  const dispatcher = recordingDispatcher();
  const feedbackSeen: unknown[] = [];
  // The sandbox is on loopback: prefetch may fetch from it only because fhirServers names it.
  const cds = new CDSHooksService({ auth: { issuers: [{ issuer: client.issuer, jwksUrls: [client.jwksUrl] }] }, fhirServers: [sandbox.fhirBase] });
  cds.hook('patient-view', {
    id: 'problem-review',
    title: 'Problem list review',
    description: 'Reviews the problem list when a chart opens',
    prefetch: { patient: 'Patient/{{context.patientId}}', conditions: 'Condition?patient={{context.patientId}}' },
    feedback: (items) => void feedbackSeen.push(...items),
  }, (req) => {
    const conditions = (req.prefetch.conditions?.entry as unknown[] | undefined) ?? [];
    const card: CDSCard = {
      summary: `${familyOf(req.prefetch.patient)}: ${conditions.length} active problem(s)`,
      indicator: conditions.length > 1 ? 'warning' : 'info',
      source: { label: 'fhirgate round trip' },
      suggestions: [{ label: 'Schedule a review', actions: [{ type: 'create', description: 'Review task', resource: { resourceType: 'Task', status: 'requested', intent: 'order' } }] }],
      selectionBehavior: 'at-most-one',
    };
    return { cards: [card] };
  });
  cds.hook('patient-view', { id: 'broken', description: 'Returns a card without summary' }, () => ({
    cards: [{ indicator: 'info', source: { label: 'x' } } as never],
  }));
  const logs: string[] = [];
  const logger = captureLogger((l) => {
    if (l.level === 'error' || l.level === 'warn') logs.push(`${l.message} ${JSON.stringify(l.fields)}`);
  });
  const { base: origin } = await startApp(t, { title: 'CDS round trip', dispatcher }, (app) => app.registerService(cds, { path: '/cds' }), logger);
  return { sandbox, client, dispatcher, feedbackSeen, origin, base: `${origin}/cds`, logs };
}

test('a CDS client discovers, calls with part of the prefetch missing, gets cards and sends feedback', async (t) => {
  const { sandbox, client, dispatcher, feedbackSeen, origin, base } = await setup(t);

  const discovery = await fetch(`${base}/cds-services`);
  assert.equal(discovery.status, 200);
  const services = ((await discovery.json()) as { services: Array<{ id: string; prefetch?: Record<string, string> }> }).services;
  const service = services.find((s) => s.id === 'problem-review');
  assert.deepEqual(service?.prefetch, { patient: 'Patient/{{context.patientId}}', conditions: 'Condition?patient={{context.patientId}}' });

  // The client prefetches the conditions itself but leaves out the patient: the service reads it from the sandbox.
  const accessToken = await ehrToken(sandbox.tokenUrl);
  const conditions = await (await fetch(`${sandbox.fhirBase}/Condition?patient=a-patient-1`, { headers: { authorization: `Bearer ${accessToken}` } })).json();
  const readsBefore = sandbox.stats.requests.byKind.read ?? 0;
  const searchesBefore = sandbox.stats.requests.byKind.search ?? 0;
  const url = `${base}/cds-services/problem-review`;
  const hookInstance = randomUUID();
  const response = await post(url, {
    hook: 'patient-view',
    hookInstance,
    fhirServer: sandbox.fhirBase,
    fhirAuthorization: { access_token: accessToken, token_type: 'Bearer', expires_in: 300, scope: 'system/*.read', subject: 'problem-review' },
    context: { userId: 'Practitioner/dr-1', patientId: 'a-patient-1' },
    prefetch: { conditions },
  }, { authorization: `Bearer ${client.token(url)}` });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  const [card] = response.body.cards;
  assert.equal(card.summary, 'Chalmers: 2 active problem(s)');
  assert.equal(card.indicator, 'warning');
  assert.equal(sandbox.stats.requests.byKind.read, readsBefore + 1);
  assert.equal(sandbox.stats.requests.byKind.search ?? 0, searchesBefore);

  const feedbackUrl = `${url}/feedback`;
  const feedback = await post(feedbackUrl, {
    feedback: [{ card: card.uuid, outcome: 'accepted', acceptedSuggestions: [{ id: card.suggestions[0].uuid }], outcomeTimestamp: new Date().toISOString() }],
  }, { authorization: `Bearer ${client.token(feedbackUrl)}` });
  assert.equal(feedback.status, 200);
  assert.deepEqual(feedbackSeen, [{ card: card.uuid, outcome: 'accepted', acceptedSuggestions: [{ id: card.suggestions[0].uuid }], outcomeTimestamp: (feedbackSeen[0] as { outcomeTimestamp: string }).outcomeTimestamp }]);
  assert.deepEqual(dispatcher.events, [
    ['cdshooks.patient-view', { service_id: 'problem-review', hook: 'patient-view', hook_instance: hookInstance, cards_count: 1, patient_id: 'a-patient-1' }],
    ['cdshooks.feedback', { service_id: 'problem-review', feedback_count: 1, outcomes: 'accepted' }],
  ]);

  const status = (await (await fetch(`${origin}/gateway/status`)).json()) as { services: Record<string, { hooks: string[] }> };
  assert.deepEqual(status.services.CDSHooksService?.hooks, ['patient-view']);
  const openapi = (await (await fetch(`${origin}/openapi.json`)).json()) as { paths: Record<string, unknown> };
  for (const path of ['/cds/cds-services', '/cds/cds-services/{id}', '/cds/cds-services/{id}/feedback', '/cds/cds-services/problem-review']) {
    assert.ok(openapi.paths[path], path);
  }
});

test('through the host: 412, replayed jti, wrong aud, expired, alg none, unknown issuer, mismatched hook, bad cards, 404/415/413', async (t) => {
  const { sandbox, client, base, logs } = await setup(t);
  const url = `${base}/cds-services/problem-review`;
  const body = (over: Record<string, unknown> = {}) => ({
    hook: 'patient-view',
    hookInstance: randomUUID(),
    fhirServer: sandbox.fhirBase,
    fhirAuthorization: { access_token: 'not-a-sandbox-token', token_type: 'Bearer', expires_in: 300, scope: 'system/*.read', subject: 's' },
    context: { userId: 'Practitioner/dr-1', patientId: 'a-patient-1' },
    ...over,
  });
  const as = (token: string) => ({ authorization: `Bearer ${token}` });

  const refused = await post(url, body(), as(client.token(url)));
  assert.equal(refused.status, 412);
  assert.equal(refused.body.error.code, 'ERR_CDS_PREFETCH');
  assert.match(refused.body.error.message, /answered 401/);
  assert.doesNotMatch(JSON.stringify(refused.body), /not-a-sandbox-token/);

  const token = client.token(url);
  const prefetched = { patient: { resourceType: 'Patient', id: 'a-patient-1' }, conditions: { resourceType: 'Bundle', type: 'searchset' } };
  assert.equal((await post(url, body({ prefetch: prefetched }), as(token))).status, 200);
  const now = Math.floor(Date.now() / 1000);
  const unauthorized = [
    token,
    client.token(`${base}/cds-services/broken`),
    client.token(url, { exp: now - 600, iat: now - 660 }),
    rawToken({ alg: 'none', kid: client.key.kid }, { iss: client.issuer, aud: url, exp: now + 60, iat: now, jti: randomUUID() }),
    client.token(url, { iss: 'https://unknown.example' }),
  ];
  for (const bad of unauthorized) {
    const r = await post(url, body({ prefetch: prefetched }), as(bad));
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { error: { code: 'ERR_UNAUTHORIZED', message: 'the CDS client could not be authenticated' } });
  }
  for (const reason of ['jti replayed', 'aud mismatch', 'token expired', 'alg not allowed', 'unknown issuer']) {
    assert.ok(logs.some((l) => l.includes(reason)), reason);
  }

  const hook = await post(url, body({ hook: 'order-sign', prefetch: prefetched }), as(client.token(url)));
  assert.equal(hook.status, 400);
  assert.equal(hook.body.error.field, 'hook');

  const brokenUrl = `${base}/cds-services/broken`;
  const broken = await post(brokenUrl, body({ prefetch: {} }), as(client.token(brokenUrl)));
  assert.equal(broken.status, 500);
  assert.deepEqual(broken.body.error, { code: 'ERR_CDS_CARD', message: 'cards[0].summary must be a non-empty string', field: 'cards[0].summary' });

  assert.equal((await post(`${base}/cds-services/nope`, body(), as(client.token(`${base}/cds-services/nope`)))).status, 404);
  assert.equal((await post(url, JSON.stringify(body()), { ...as(client.token(url)), 'content-type': 'text/xml' })).status, 415);
  const large = await post(url, body({ context: { userId: 'Practitioner/1', patientId: 'p', pad: 'x'.repeat(1_100_000) } }), as(client.token(url)));
  assert.equal(large.status, 413);
});
