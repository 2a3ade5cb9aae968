import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { fhirFor, ids, jsonBody, type Fhir } from './helpers.js';

const P = (...n: number[]): string[] => n.map((i) => `a-patient-${i}`);

async function searchIds(fhir: Fhir, query: string): Promise<string[]> {
  const res = await fhir.json(query);
  assert.equal(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.resourceType, 'Bundle');
  assert.equal(res.body.type, 'searchset');
  return ids(res.body);
}

async function expectSet(fhir: Fhir, query: string, expected: string[]): Promise<void> {
  assert.deepEqual((await searchIds(fhir, query)).sort(), [...expected].sort(), query);
}

async function expectCount(fhir: Fhir, query: string, total: number): Promise<void> {
  const res = await fhir.json(query);
  assert.equal(res.status, 200, query);
  assert.equal(res.body.total, total, query);
}

async function setup(t: TestContext): Promise<Fhir> {
  return (await fhirFor(t)).fhir;
}

test('a searchset Bundle has total, an absolute self link, fullUrl and search.mode match', async (t) => {
  const { sandbox, fhir } = await fhirFor(t);
  const res = await fhir.json('/Patient?gender=female');
  assert.equal(res.body.total, 2);
  assert.deepEqual(res.body.link, [{ relation: 'self', url: `${sandbox.fhirBase}/Patient?gender=female` }]);
  for (const entry of res.body.entry) {
    assert.equal(entry.fullUrl, `${sandbox.fhirBase}/Patient/${entry.resource.id}`);
    assert.deepEqual(entry.search, { mode: 'match' });
  }
  const empty = await fhir.json('/Encounter');
  assert.equal(empty.body.total, 0);
  assert.equal(empty.body.entry, undefined);
});

test('_id matches one or several ids', async (t) => {
  const fhir = await setup(t);
  await expectSet(fhir, '/Patient?_id=a-patient-1,a-patient-2', P(1, 2));
  await expectSet(fhir, '/Observation?_id=a-patient-1-obs-1-1', ['a-patient-1-obs-1-1']);
});

test('family, given and name match case- and accent-insensitive prefixes, :exact and :contains', async (t) => {
  const fhir = await setup(t);
  await expectSet(fhir, '/Patient?family=chal', P(1));
  await expectSet(fhir, '/Patient?family=CHALMERS', P(1));
  await expectSet(fhir, '/Patient?family:exact=Chalmers', P(1));
  await expectSet(fhir, '/Patient?family:exact=chalmers', []);
  await expectSet(fhir, '/Patient?family:contains=ALM', P(1));
  await expectSet(fhir, '/Patient?given=james', P(1));
  await expectSet(fhir, '/Patient?given=pet', P(1));
  await expectSet(fhir, '/Patient?name=muller', P(5));
  await expectSet(fhir, '/Patient?name=linh', P(3));
  await expectSet(fhir, `/Patient?family=${encodeURIComponent("o'brien")}`, P(4));
});

test('birthdate supports eq, partial dates, and the ne/lt/gt/le/ge/sa/eb prefixes', async (t) => {
  const fhir = await setup(t);
  await expectSet(fhir, '/Patient?birthdate=1974-12-25', P(1));
  await expectSet(fhir, '/Patient?birthdate=eq1974', P(1));
  await expectSet(fhir, '/Patient?birthdate=1974-12', P(1));
  await expectSet(fhir, '/Patient?birthdate=ne1974-12-25', P(2, 3, 4, 5));
  await expectSet(fhir, '/Patient?birthdate=lt1970', P(4, 5));
  await expectSet(fhir, '/Patient?birthdate=gt1982-03-14', P(3));
  await expectSet(fhir, '/Patient?birthdate=ge1982-03-14', P(2, 3));
  await expectSet(fhir, '/Patient?birthdate=le1965-11-30', P(4, 5));
  await expectSet(fhir, '/Patient?birthdate=sa1982', P(3));
  await expectSet(fhir, '/Patient?birthdate=eb1965', P(5));
  await expectSet(fhir, '/Patient?birthdate=ap1990-07', P(3));
  await expectSet(fhir, `/Patient?birthdate=${encodeURIComponent('ge1974-12-25T00:00:00+02:00')}`, P(1, 2, 3));
});

test('repeated parameters AND together, commas OR within one value', async (t) => {
  const fhir = await setup(t);
  await expectSet(fhir, '/Patient?birthdate=ge1970&birthdate=lt1980', P(1));
  await expectSet(fhir, '/Patient?gender=female,male', P(1, 2, 3, 4, 5));
  await expectSet(fhir, '/Patient?gender=male&address-city=Boston', P(1, 4));
  const created = await fhir.json('/Patient', jsonBody('POST', { resourceType: 'Patient', name: [{ family: 'a,b' }] }));
  await expectSet(fhir, `/Patient?family:exact=${encodeURIComponent('a\\,b')}`, [created.body.id]);
});

test('gender, address-city and active are searchable; :not and :missing work', async (t) => {
  const fhir = await setup(t);
  await expectSet(fhir, '/Patient?gender=female', P(2, 3));
  await expectSet(fhir, '/Patient?gender:not=male', P(2, 3));
  await expectSet(fhir, '/Patient?address-city=bos', P(1, 4));
  await expectSet(fhir, '/Patient?active=true', P(1, 2, 3, 4, 5));
  await expectSet(fhir, '/Patient?gender:missing=false', P(1, 2, 3, 4, 5));
  await expectSet(fhir, '/Patient?birthdate:missing=true', []);
  assert.equal((await fhir('/Patient?gender:missing=maybe')).status, 400);
});

test('identifier matches a value, system|value, |value and system|', async (t) => {
  const fhir = await setup(t);
  const system = 'urn:oid:2.16.840.1.113883.19.5';
  await expectSet(fhir, '/Patient?identifier=MRN-A-0003', P(3));
  await expectSet(fhir, `/Patient?identifier=${encodeURIComponent(`${system}|MRN-A-0003`)}`, P(3));
  await expectSet(fhir, `/Patient?identifier=${encodeURIComponent('urn:other|MRN-A-0003')}`, []);
  await expectSet(fhir, `/Patient?identifier=${encodeURIComponent('|MRN-A-0003')}`, []);
  await expectSet(fhir, `/Patient?identifier=${encodeURIComponent(`${system}|`)}`, P(1, 2, 3, 4, 5));
  assert.equal((await fhir(`/Patient?identifier=${encodeURIComponent('a|b|c')}`)).status, 400);
});

test('patient and subject take Patient/x, bare x and absolute references', async (t) => {
  const fhir = await setup(t);
  await expectCount(fhir, '/Observation?patient=a-patient-1', 8);
  await expectCount(fhir, '/Observation?patient=Patient/a-patient-1', 8);
  await expectCount(fhir, '/Observation?subject=Patient/a-patient-1', 8);
  await expectCount(fhir, '/Observation?subject=a-patient-1', 8);
  await expectCount(fhir, `/Observation?subject=${encodeURIComponent('http://elsewhere/fhir/Patient/a-patient-1')}`, 8);
  await expectCount(fhir, '/Observation?patient=Group/a-patient-1', 0);
  await expectCount(fhir, '/Condition?patient=a-patient-4', 2);
  await expectCount(fhir, '/Observation?patient:missing=true', 0);
});

test('category and code take a code or system|code', async (t) => {
  const fhir = await setup(t);
  await expectCount(fhir, '/Observation?category=laboratory', 20);
  await expectCount(fhir, `/Observation?category=${encodeURIComponent('http://terminology.hl7.org/CodeSystem/observation-category|vital-signs')}`, 20);
  await expectCount(fhir, '/Observation?patient=a-patient-2&category=vital-signs', 4);
  await expectCount(fhir, `/Observation?code=${encodeURIComponent('http://loinc.org|8867-4')}`, 10);
  await expectCount(fhir, '/Observation?code=8867-4,29463-7&patient=a-patient-2', 4);
  await expectCount(fhir, '/Condition?code=38341003', 2);
  await expectCount(fhir, '/Condition?category=problem-list-item&clinical-status=active', 7);
  await expectCount(fhir, '/Observation?date=ge2023', 20);
  await expectCount(fhir, '/Observation?status=final', 40);
  await expectCount(fhir, '/Patient?_lastUpdated=gt2000', 5);
  const visit = await fhir.json('/Encounter', jsonBody('POST', { resourceType: 'Encounter', status: 'finished', class: { code: 'AMB' }, subject: { reference: 'Patient/a-patient-1' }, period: { start: '2024-05-01T08:00:00Z' } }));
  await expectSet(fhir, '/Encounter?date=2024-05&patient=a-patient-1', [visit.body.id]);
  await expectSet(fhir, '/Encounter?date=2024-06', []);
  await expectSet(fhir, '/Encounter?date:missing=false', [visit.body.id]);
});

test('_sort orders by one or several keys, - for descending', async (t) => {
  const fhir = await setup(t);
  assert.deepEqual(await searchIds(fhir, '/Patient?_sort=birthdate'), P(5, 4, 1, 2, 3));
  assert.deepEqual(await searchIds(fhir, '/Patient?_sort=-birthdate'), P(3, 2, 1, 4, 5));
  assert.deepEqual(await searchIds(fhir, '/Patient?_sort=gender,-birthdate'), P(3, 2, 1, 4, 5));
  assert.deepEqual(await searchIds(fhir, '/Patient?_sort=family'), P(1, 2, 5, 3, 4));
  assert.deepEqual(await searchIds(fhir, '/Patient?_sort=-_id'), P(5, 4, 3, 2, 1));
  assert.equal((await fhir('/Patient?_sort=shoe-size')).status, 400);
});

test('paging: _count cuts pages and following next links to the end visits every match once', async (t) => {
  const { sandbox, fhir } = await fhirFor(t);
  const seen: string[] = [];
  let url: string | undefined = `${sandbox.fhirBase}/Observation?_count=7&_sort=_id`;
  let pages = 0;
  while (url !== undefined) {
    const res = await fhir.json(url);
    assert.equal(res.status, 200);
    assert.equal(res.body.total, 40);
    const self = res.body.link.find((l: { relation: string }) => l.relation === 'self');
    assert.equal(self.url, url);
    seen.push(...ids(res.body));
    url = res.body.link.find((l: { relation: string }) => l.relation === 'next')?.url;
    if (url !== undefined) assert.ok(url.startsWith(`${sandbox.fhirBase}/Observation?`));
    pages++;
  }
  assert.equal(pages, 6);
  assert.equal(seen.length, 40);
  assert.equal(new Set(seen).size, 40);
  assert.deepEqual(seen, [...seen].sort());
  const none = await fhir.json('/Observation?_count=0');
  assert.equal(none.body.total, 40);
  assert.equal(none.body.entry, undefined);
});

test('an unknown parameter, modifier or bad value answers 400 OperationOutcome', async (t) => {
  const fhir = await setup(t);
  for (const query of [
    '/Patient?foo=bar', '/Patient?family:fuzzy=x', '/Patient?family:exact:contains=x', '/Observation?birthdate=1970',
    '/Patient?_count=-1', '/Patient?_count=abc', '/Patient?_count=2&_count=3', '/Patient?_count=1.5',
    '/Patient?birthdate=1974-13', '/Patient?birthdate=yesterday', '/Patient?birthdate=1974-02-30',
    '/Patient?constructor=x', '/Patient?_offset=x', '/Patient?_format=xml', '/Patient?_format=application/fhir%2Bxml',
  ]) {
    const res = await fhir.json(query);
    assert.equal(res.status, 400, query);
    assert.equal(res.body.resourceType, 'OperationOutcome', query);
    assert.equal(res.body.issue[0].severity, 'error');
  }
  await expectCount(fhir, '/Patient?family=', 5);
});

test('a _count over the largest page is cut to it, not refused (R4: the server "cannot return more")', async (t) => {
  const { sandbox, fhir } = await fhirFor(t);
  const res = await fhir.json('/Observation?_count=5000&_sort=_id');
  assert.equal(res.status, 200);
  assert.equal(res.body.total, 40);
  assert.equal(res.body.entry.length, 40);
  const self = res.body.link.find((l: { relation: string }) => l.relation === 'self');
  assert.equal(self.url, `${sandbox.fhirBase}/Observation?_count=1000&_sort=_id`);
});

test('the general parameters _format (JSON) and _pretty select nothing, as on any FHIR server', async (t) => {
  const fhir = await setup(t);
  for (const query of ['_format=json', '_format=application/fhir+json', '_format=application%2Ffhir%2Bjson', '_format=application/json', '_pretty=true']) {
    await expectCount(fhir, `/Patient?${query}`, 5);
    await expectCount(fhir, `/Patient?${query}&family=Chalmers`, 1);
  }
});

test('_elements keeps resourceType, id, meta and the named elements, tags the copy SUBSETTED, and stays in the self link', async (t) => {
  const { sandbox, fhir } = await fhirFor(t);
  const res = await fhir.json('/Patient?_count=1&_elements=id');
  assert.equal(res.status, 200);
  const [patient] = res.body.entry.map((e: { resource: Record<string, unknown> }) => e.resource);
  assert.deepEqual(Object.keys(patient).sort(), ['id', 'meta', 'resourceType']);
  assert.ok(patient.meta.tag.some((tag: { code: string }) => tag.code === 'SUBSETTED'));
  assert.equal(res.body.link[0].url, `${sandbox.fhirBase}/Patient?_count=1&_elements=id`);
  const named = await fhir.json('/Patient?_count=1&_elements=gender,birthDate');
  assert.deepEqual(Object.keys(named.body.entry[0].resource).sort(), ['birthDate', 'gender', 'id', 'meta', 'resourceType']);
  const whole = await fhir.json('/Patient?_count=1');
  assert.ok(Object.keys(whole.body.entry[0].resource).includes('name'), 'without _elements nothing is cut');
  assert.equal((await fhir.json('/Patient?_elements=id&_elements=name')).status, 400);
});
