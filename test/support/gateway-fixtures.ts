/** Shared set-up of the async gateway tests: gateways and captured events, torn down in t.after (the sandbox is test/support/sandbox.ts). */
import type { TestContext } from 'node:test';
import { LocalEventDispatcher } from '../../src/events/index.js';
import type { EventPair } from '../../src/events/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import type { AsyncFHIRGatewayOptions } from '../../src/gateway/index.js';

/** A gateway whose events are captured in `events`. */
export function gateway(t: TestContext, options: AsyncFHIRGatewayOptions = {}): { gw: AsyncFHIRGateway; events: EventPair[] } {
  const dispatcher = new LocalEventDispatcher();
  const events: EventPair[] = [];
  dispatcher.register('*', (pair) => void events.push(pair));
  const gw = new AsyncFHIRGateway({ dispatcher, ...options });
  t.after(() => gw.close());
  return { gw, events };
}

/** Lets queued event handlers run. */
export async function settle(): Promise<void> {
  await new Promise((r) => setImmediate(r));
}
