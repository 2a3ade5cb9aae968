/**
 * A FHIR server for rate-limit tests: it answers one fixed Patient, counts the requests it got and how
 * many it held at once, and can hold its answers or answer 429. On 127.0.0.1 port 0, closed in `t.after`.
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

/**
 * Starts one; `cs` is its connection string.
 *
 * @example
 * ```ts
 * const up = await countingUpstream(t);
 * gw.addSource('up', up.cs); // later: up.state.count
 * ```
 */
export async function countingUpstream(t: TestContext) {
  const state = { count: 0, inFlight: 0, maxInFlight: 0, hold: undefined as Promise<void> | undefined, throttle: false };
  const server = createServer(async (_req, res) => {
    state.count++;
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    if (state.hold !== undefined) await state.hold;
    state.inFlight--;
    if (state.throttle) {
      res.writeHead(429, { 'retry-after': '7', 'content-type': 'application/fhir+json' });
      res.end('{"resourceType":"OperationOutcome","issue":[{"severity":"error","code":"throttled"}]}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/fhir+json' });
    res.end('{"resourceType":"Patient","id":"1","meta":{"versionId":"1"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return { state, cs: `fhir://127.0.0.1:${(server.address() as AddressInfo).port}/fhir/` };
}

