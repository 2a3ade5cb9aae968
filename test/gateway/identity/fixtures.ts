/**
 * Three sandboxes holding the same people under different local ids, a caller-writable one, and the
 * gateway over them, for the identity tests.
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { Resource } from '../../../src/fhir/index.js';
import { AsyncFHIRGateway, type AsyncFHIRGatewayOptions, type IdentityOptions } from '../../../src/gateway/index.js';
import type { Sandbox } from '../../../src/sandbox/index.js';
import { sandbox } from '../../support/sandbox.js';

export const MRN = 'http://hospital.example.org/mrn';
export const SSN = 'urn:oid:2.16.840.1.113883.4.1';

const patient = (id: string, identifiers: Array<[string, string]>, link: Array<[string, string]> = []): Resource =>
  ({
    resourceType: 'Patient',
    id,
    identifier: identifiers.map(([system, value]) => ({ system, value })),
    ...(link.length === 0 ? {} : { link: link.map(([type, other]) => ({ type, other: { reference: `Patient/${other}` } })) }),
  }) as Resource;

const obs = (id: string, subject: string): Resource =>
  ({ resourceType: 'Observation', id, status: 'final', code: { text: 'pulse' }, subject: { reference: `Patient/${subject}` } }) as Resource;

/**
 * Ann is MRN 100 / SSN 111 everywhere: `e-ann` in ehr, `l-ann` in lab, `r-ann` in research (where her
 * old record `r-ann-old` was merged into it). Bob is MRN 200: `shared-1` in ehr, two records in research
 * (ambiguous). `shared-1` in lab is Carol (MRN 300), another person under the same local id. Lab's
 * `l-dan` holds SSN 111 too: Ann's two identifiers point to different records there. The portal, a
 * caller-writable source, holds a record that plants Ann's MRN.
 */
export const SEEDS = {
  ehr: [patient('e-ann', [[MRN, '100'], [SSN, '111']]), patient('shared-1', [[MRN, '200']]), obs('e-ann-obs', 'e-ann'), obs('e-bob-obs', 'shared-1')],
  lab: [patient('l-ann', [[MRN, '100']]), patient('l-dan', [[SSN, '111']]), patient('shared-1', [[MRN, '300']]), obs('l-ann-obs', 'l-ann'), obs('l-carol-obs', 'shared-1')],
  research: [
    patient('r-ann-old', [[MRN, '100']], [['replaced-by', 'r-ann']]),
    patient('r-ann', [[MRN, '100']], [['replaces', 'r-ann-old'], ['seealso', 'r-ann-study']]),
    patient('r-ann-study', [[MRN, '100-S']]),
    patient('r-bob-1', [[MRN, '200']]),
    patient('r-bob-2', [[MRN, '200']]),
    obs('r-ann-obs', 'r-ann'),
    obs('r-bob-obs', 'r-bob-1'),
  ],
  portal: [patient('planted', [[MRN, '100'], [MRN, '200']]), obs('planted-obs', 'planted')],
} satisfies Record<string, Resource[]>;

/** MRN is believed from ehr, lab and research only (not the caller-writable portal); SSN from every source. */
export const IDENTITY: IdentityOptions = { systems: [MRN, SSN], authorities: { [MRN]: ['ehr', 'lab', 'research'] }, ttlSeconds: 300 };

export type SourceName = keyof typeof SEEDS;

/** Starts the sandboxes named (default all four) and a gateway over them, in that order; MRN is believed from all but the portal. */
export async function identityGateway(
  t: TestContext,
  names: readonly SourceName[] = ['ehr', 'lab', 'research', 'portal'],
  options: AsyncFHIRGatewayOptions = {},
): Promise<{ gw: AsyncFHIRGateway; sandboxes: Record<string, Sandbox> }> {
  const sandboxes: Record<string, Sandbox> = {};
  for (const name of names) sandboxes[name] = await sandbox(t, { seed: SEEDS[name] });
  const identity = { ...IDENTITY, authorities: { [MRN]: names.filter((n) => n !== 'portal') } };
  const gw = gatewayOver(t, sandboxes, { identity, ...options });
  return { gw, sandboxes };
}

/** Another gateway over the same sandboxes (a replica). */
export function gatewayOver(t: TestContext, sandboxes: Record<string, Sandbox>, options: AsyncFHIRGatewayOptions = {}): AsyncFHIRGateway {
  const gw = new AsyncFHIRGateway({ events: false, identity: IDENTITY, ...options });
  t.after(() => gw.close());
  for (const [name, sb] of Object.entries(sandboxes)) gw.addSource(name, sb.connectionString());
  return gw;
}

/** Patient searches a sandbox has answered so far. */
export const searches = (sb: Sandbox): number => sb.stats.requests.byKind.search ?? 0;

/**
 * A FHIR server that ignores search parameters: every Patient search answers the same records (none
 * carrying the identifier asked), with a next link when `paged`. Counts its requests.
 */
export async function ignoringServer(t: TestContext, paged: boolean): Promise<{ cs: string; count: () => number }> {
  let count = 0;
  const server = createServer((req, res) => {
    count++;
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/fhir`;
    const bundle = {
      resourceType: 'Bundle',
      type: 'searchset',
      ...(paged ? { link: [{ relation: 'next', url: `${base}/Patient?page=2` }] } : {}),
      entry: [
        { resource: patient('x-1', [[MRN, '999']]), search: { mode: 'match' } },
        { resource: patient('x-2', [[SSN, '999']]), search: { mode: 'match' } },
      ],
    };
    res.writeHead(req.url?.startsWith('/fhir/Patient?') ? 200 : 404, { 'content-type': 'application/fhir+json' });
    res.end(JSON.stringify(bundle));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return { cs: `fhir://127.0.0.1:${(server.address() as AddressInfo).port}/fhir/`, count: () => count };
}
