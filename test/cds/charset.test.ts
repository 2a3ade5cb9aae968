/**
 * A CDS body declared in another charset than UTF-8 (issue 13): refused with 415, never misread as
 * UTF-8. JSON is UTF-8 (RFC 8259 §8.1); `charset=utf-8` (any case, quoted or not) and no charset pass.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { CDSHooksService } from '../../src/cds/index.js';
import { startApp } from '../support/serve.js';

test('charset=iso-8859-1 (or any non-UTF-8 charset) is 415; UTF-8 and no charset are served', async (t) => {
  const seen: string[] = [];
  const cds = new CDSHooksService();
  cds.hook('patient-view', { id: 'greet', description: 'greets' }, (req) => {
    seen.push(String(req.context.note));
    return { cards: [] };
  });
  const { base } = await startApp(t, {}, (app) => app.registerService(cds));
  const url = `${base}/cds/cds-services/greet`;
  const body = (note: string) => JSON.stringify({ hook: 'patient-view', hookInstance: randomUUID(), context: { userId: 'Practitioner/1', patientId: '123', note } });
  for (const charset of ['iso-8859-1', 'ISO-8859-1', 'latin1', 'utf-16', 'windows-1252', '"iso-8859-1"', 'utf-8x']) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': `application/json; charset=${charset}` }, body: Buffer.from(body('Jos\u00e9'), 'latin1') });
    assert.equal(res.status, 415, charset);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'ERR_UNSUPPORTED_MEDIA_TYPE');
  }
  for (const type of ['application/json', 'application/json; charset=utf-8', 'application/json;charset="UTF-8"', 'application/fhir+json; charset=utf8']) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': type }, body: body('Jos\u00e9') });
    assert.equal(res.status, 200, `${type}: ${await res.text()}`);
  }
  assert.deepEqual(seen, Array(4).fill('Jos\u00e9'));
});
