/**
 * A purpose-built Bulk Data server for fault tests: its kick-off answers 202 with a status URL, its
 * status endpoint plays a script of answers (the last one repeats), its files are written by the test,
 * and `/token` issues `token-1`, `token-2`, ... Every request is recorded in `seen`.
 */
import type { ServerResponse } from 'node:http';
import type { TestContext } from 'node:test';
import { startServer } from './test-server.js';
import type { TestServer } from './test-server.js';

/** One status answer: a status, headers, and a JSON body. */
export interface StatusAnswer {
  status: number;
  headers?: Record<string, string | undefined>;
  body?: unknown;
}

export interface BulkServerSetup {
  /** The status endpoint's answers in order; the last one repeats. Default: the manifest of `files` at once. */
  status?: (manifest: unknown) => StatusAnswer[];
  /** Files by path (`/files/...`): what to write. */
  files?: Record<string, (res: ServerResponse) => void>;
  /** The manifest's `requiresAccessToken`. Default true. */
  requiresAccessToken?: boolean;
  /** Extra manifest entries, with absolute URLs. */
  extra?: { output?: { type: string; url: string }[]; error?: { type: string; url: string }[]; deleted?: { type: string; url: string }[] };
}

export interface BulkServer extends TestServer {
  /** `fhir://` with client credentials whose token endpoint is `/token` on the same server. */
  readonly connectionString: string;
  readonly statusUrl: string;
}

const OUTCOME = (code: string, text: string) => ({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code, diagnostics: text }] });
export { OUTCOME };

export async function bulkServer(t: TestContext, setup: BulkServerSetup = {}): Promise<BulkServer> {
  let base = '';
  let polls = 0;
  let tokens = 0;
  const manifest = (): unknown => ({
    transactionTime: '2026-01-01T00:00:00Z',
    request: `${base}/fhir/$export`,
    requiresAccessToken: setup.requiresAccessToken ?? true,
    output: [...Object.keys(setup.files ?? {}).filter((p) => !p.includes('error')).map((p) => ({ type: typeOf(p), url: `${base}${p}` })), ...(setup.extra?.output ?? [])],
    error: [...Object.keys(setup.files ?? {}).filter((p) => p.includes('error')).map((p) => ({ type: 'OperationOutcome', url: `${base}${p}` })), ...(setup.extra?.error ?? [])],
    ...(setup.extra?.deleted === undefined ? {} : { deleted: setup.extra.deleted }),
  });
  const srv = await startServer(t, (req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (path === '/token') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: `token-${++tokens}`, token_type: 'Bearer', expires_in: 300 }));
    } else if (path.endsWith('$export')) {
      res.writeHead(202, { 'content-location': `${base}/status/1`, 'content-length': '0' });
      res.end();
    } else if (path === '/status/1' && req.method === 'DELETE') {
      res.writeHead(202, { 'content-length': '0' });
      res.end();
    } else if (path === '/status/1') {
      const script = setup.status?.(manifest()) ?? [{ status: 200, body: manifest() }];
      const answer = script[Math.min(polls++, script.length - 1)] as StatusAnswer;
      const body = answer.body === undefined ? '' : JSON.stringify(answer.body);
      const headers = Object.fromEntries(Object.entries(answer.headers ?? {}).filter(([, v]) => v !== undefined)) as Record<string, string>;
      res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers });
      res.end(body);
    } else if (setup.files?.[path] !== undefined) {
      setup.files[path]?.(res);
    } else {
      res.writeHead(404, { 'content-type': 'application/fhir+json' });
      res.end(JSON.stringify(OUTCOME('not-found', 'no such path')));
    }
  });
  base = srv.url;
  const connectionString = `fhir://${srv.url.slice('http://'.length)}/fhir?client_id=app&client_secret=s3cret&token_url=${encodeURIComponent(`${srv.url}/token`)}`;
  return Object.assign(srv, { connectionString, statusUrl: `${srv.url}/status/1` });
}

/** `/files/Patient.ndjson` → `Patient`. */
function typeOf(path: string): string {
  return /\/([A-Za-z]+)[^/]*\.ndjson$/.exec(path)?.[1] ?? 'Unknown';
}

/** Writes `lines` as a complete NDJSON answer. */
export const ndjson = (lines: readonly unknown[]) => (res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'application/fhir+ndjson' });
  res.end(lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + (lines.length > 0 ? '\n' : ''));
};
