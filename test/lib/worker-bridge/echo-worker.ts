/** A tiny object served over the sync bridge, for the bridge's own tests. */
import { workerData } from 'node:worker_threads';
import { AuthTokenError, FHIRHTTPError, FhirgateError } from '../../../src/errors.js';
import { serveBridge } from '../../../src/lib/worker-bridge/serve.js';
import type { BridgeWorkerData } from '../../../src/lib/worker-bridge/protocol.js';

const data = workerData as BridgeWorkerData;
let release: (() => void) | undefined;
let calls = 0;

const methods: Record<string, (...args: unknown[]) => unknown> = {
  echo: (value) => value,
  startData: () => data.data,
  add: async (a, b) => (a as number) + (b as number),
  hang: () => new Promise<string>((resolve) => { release = () => resolve('late answer'); }),
  release: () => { release?.(); return 'released'; },
  uncloneable: () => () => 1,
  deep: (levels) => {
    let value: unknown[] = [];
    for (let i = 0; i < (levels as number); i++) value = [value];
    return value;
  },
  exit: () => process.exit(3),
  fail: (kind) => {
    switch (kind) {
      case 'http': throw new FHIRHTTPError('read Patient/x failed: 404 Not Found: gone', {
        status: 404, operation: 'read', reference: 'Patient/x',
        operationOutcome: { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-found' }] },
        cause: new Error('inner'),
      });
      case 'auth': throw new AuthTokenError('token refused', { status: 401, oauthError: 'invalid_client', oauthErrorDescription: 'bad secret' });
      case 'fhirgate': throw new FhirgateError('ERR_TIMEOUT', 'too slow', { cause: Object.assign(new Error('aborted'), { name: 'TimeoutError' }) });
      case 'type': throw new TypeError('bad option "x"');
      case 'range': throw new RangeError('option "y" out of range');
      case 'string': throw 'just a string';
      default: throw Object.assign(new Error('plain'), { code: 'E_CUSTOM' });
    }
  },
};

serveBridge(data, {
  call(method, args) {
    calls += 1;
    const fn = methods[method];
    if (fn === undefined) throw new TypeError(`no method ${method}`);
    return fn(...args);
  },
  takeExtra: () => calls,
});
