/**
 * A gateway mounted on a real `createServiceAPI({ dispatcher })` in front of the sandbox, for the tests
 * that count what reads emit onto a bus.
 */
import { randomUUID } from 'node:crypto';
import type { TestContext } from 'node:test';
import type { EventDispatcher } from '../../src/events/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { sandbox as testSandbox } from './sandbox.js';
import { startApp } from './serve.js';

export interface ReadingApp {
  /** The client secret the gateway authenticates with: it must appear in no event. */
  readonly secret: string;
  /** `http://127.0.0.1:PORT` of the app. */
  readonly base: string;
  /** Reads Patient/p1 `count` times, `parallel` at a time. */
  read(count: number, parallel?: number): Promise<void>;
  /** `GET /gateway/status` → `events`. */
  events(): Promise<Record<string, unknown>>;
}


export async function startReadingApp(t: TestContext, dispatcher: EventDispatcher): Promise<ReadingApp> {
  const secret = `secret-${randomUUID()}`;
  const sandbox = await testSandbox(t, { clients: [{ clientId: 'app', clientSecret: secret }], seed: [{ resourceType: 'Patient', id: 'p1' }] });
  const gw = new AsyncFHIRGateway();
  gw.addSource('ehr', sandbox.connectionString('app'));
  const { base } = await startApp(t, { dispatcher }, (app) => app.registerGateway(gw));
  return {
    secret,
    base,
    async read(count, parallel = 50) {
      let next = 0;
      const worker = async () => {
        while (next < count) {
          next += 1;
          await gw.read('Patient', 'p1');
        }
      };
      await Promise.all(Array.from({ length: parallel }, worker));
    },
    async events() {
      const r = await fetch(`${base}/gateway/status`);
      return ((await r.json()) as { events: Record<string, unknown> }).events;
    },
  };
}
