/**
 * The facade's identity tests' sources: the identity fixtures' four sandboxes (open, so that a test may
 * change a record), and small helpers to call the facade and read its Bundles.
 * @module
 */
import type { TestContext } from 'node:test';
import type { IdentityOptions } from '../../src/gateway/index.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { sandbox } from '../support/sandbox.js';
import { IDENTITY, MRN, SEEDS } from '../gateway/identity/fixtures.js';

/** Ann's and Bob's MRN (see the fixtures' SEEDS). */
export const ANN = `${MRN}|100`;
/** Bob's. */
export const BOB = `${MRN}|200`;

/** The four sandboxes of the identity fixtures (open: a test may write to them), MRN believed from all but the portal. */
export async function fourSources(t: TestContext): Promise<{ sandboxes: Record<string, Sandbox>; sources: Record<string, string>; identity: IdentityOptions }> {
  const sandboxes: Record<string, Sandbox> = {};
  for (const [name, seed] of Object.entries(SEEDS)) sandboxes[name] = await sandbox(t, { open: true, seed });
  const sources = Object.fromEntries(Object.entries(sandboxes).map(([name, sb]) => [name, sb.connectionString()]));
  return { sandboxes, sources, identity: { ...IDENTITY, authorities: { [MRN]: ['ehr', 'lab', 'research'] } } };
}

/** GET with an API key or a bearer JWT. */
export async function get(url: string, credential: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { headers: credential.split('.').length === 3 ? { authorization: `Bearer ${credential}` } : { 'x-api-key': credential } });
  return { status: res.status, body: await res.json() };
}

/** The ids of a Bundle's entries but outcomes, `Type/id`, sorted. */
export const ids = (bundle: any): string[] => (bundle.entry ?? []).filter((e: any) => e.search?.mode !== 'outcome').map((e: any) => `${e.resource.resourceType}/${e.resource.id}`).sort();
/** The diagnostics of a Bundle's outcome entries. */
export const outcomes = (bundle: any): string[] => (bundle.entry ?? []).filter((e: any) => e.search?.mode === 'outcome').flatMap((e: any) => e.resource.issue.map((i: any) => String(i.diagnostics)));

