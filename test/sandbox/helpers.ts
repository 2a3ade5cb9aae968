/**
 * Shared helpers of the sandbox tests: a token and FHIR calls (the sandbox itself is test/support/sandbox.ts).
 */
import type { TestContext } from 'node:test';
import type { Sandbox, SandboxOptions } from '../../src/sandbox/index.js';
import { sandbox as testSandbox } from '../support/sandbox.js';

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** A token for the default client, through client_secret_post. */
export async function tokenFor(sandbox: Sandbox, clientId = 'fhirgate-demo', secret = 'demo-secret'): Promise<string> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret });
  const res = await fetch(sandbox.tokenUrl, { method: 'POST', headers: FORM, body });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** A FHIR client bound to a sandbox and a token. */
export interface Fhir {
  (path: string, init?: RequestInit): Promise<Response>;
  json(path: string, init?: RequestInit): Promise<{ status: number; headers: Headers; body: any }>;
}

/** A sandbox (open by default) and a `fetch` relative to its FHIR base. */
export async function fhirFor(t: TestContext, options: SandboxOptions = { open: true }): Promise<{ sandbox: Sandbox; fhir: Fhir }> {
  const sandbox = await testSandbox(t, options);
  const token = options.open === true ? undefined : await tokenFor(sandbox);
  const call = (path: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (token !== undefined && !headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
    const url = path.startsWith('http') ? path : `${sandbox.fhirBase}${path}`;
    return fetch(url, { ...init, headers });
  };
  const fhir = Object.assign(call, {
    async json(path: string, init?: RequestInit) {
      const res = await call(path, init);
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
    },
  });
  return { sandbox, fhir };
}

/** A JSON request init. */
export function jsonBody(method: string, value: unknown, headers: Record<string, string> = {}): RequestInit {
  return { method, headers: { 'content-type': 'application/fhir+json', ...headers }, body: JSON.stringify(value) };
}

/** The ids of a Bundle's entries. */
export function ids(bundle: { entry?: { resource: { id: string } }[] }): string[] {
  return (bundle.entry ?? []).map((e) => e.resource.id);
}
