/**
 * What the Redis tests share: a node-redis client set up as the README says (error listener, no
 * offline queue, quick reconnects), and a CDS replica answering behind a proxy with a shared replay store.
 */
import { randomUUID } from 'node:crypto';
import type { TestContext } from 'node:test';
import { createClient } from 'redis';
import { CDSHooksService } from '../../src/cds/index.js';
import type { KeyValueStore } from '../../src/lib/key-value-store.js';
import { startApp } from '../support/serve.js';

export type RedisClient = ReturnType<typeof createClient>;

/** The public URL every CDS replica answers as (behind a TLS proxy). */
export const CDS_AUDIENCE = 'https://cds.example.org/cds/cds-services/svc';

/**
 * A connected client with the settings that survive an outage; `errors` collects what it emitted on
 * `'error'`. Destroyed after the test (the server stops first in `t.after` order: the listener keeps
 * the socket's errors from becoming uncaught exceptions).
 */
export async function connectRedis(t: TestContext, url: string, { reconnect = true } = {}): Promise<RedisClient & { errors: string[] }> {
  const client = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: reconnect ? () => 50 : false } });
  const errors: string[] = [];
  client.on('error', (err: Error) => errors.push(err.message));
  await client.connect();
  t.after(() => {
    if (client.isOpen) client.destroy();
  });
  return Object.assign(client, { errors });
}

/** One CDS replica: its own service and app, sharing `store`; resolves to the URL of service `svc`. */
export async function cdsReplica(t: TestContext, issuer: string, jwksUrl: string, store: KeyValueStore): Promise<string> {
  const cds = new CDSHooksService({ auth: { issuers: [{ issuer, jwksUrls: [jwksUrl] }], replayStore: store } });
  cds.hook('patient-view', { id: 'svc', description: 'x' }, () => ({ cards: [] }));
  const { base } = await startApp(t, { trustProxy: true, allowedHosts: ['cds.example.org'] }, (app) => app.registerService(cds, { path: '/cds' }));
  return `${base}/cds/cds-services/svc`;
}

/** POSTs a patient-view call with `token` to a replica at `url`, as the proxy forwards it. */
export function callCds(url: string, token: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'cds.example.org' },
    body: JSON.stringify({ hook: 'patient-view', hookInstance: randomUUID(), context: { userId: 'Practitioner/1', patientId: '123' } }),
  });
}
