/**
 * Workload 3: token requests seen by the sandbox's token endpoint during a burst of 10,000 reads on a
 * cold token cache. Single flight means exactly 1. Run alone: `node --import tsx bench/token-burst.ts`.
 */
import { AsyncFHIRGateway } from '../src/index.js';
import { startSandbox } from '../src/sandbox/index.js';

export interface TokenFigures {
  calls: number;
  tokenRequests: number;
  errors: number;
  seconds: number;
}

export async function benchTokenBurst(calls = 10_000): Promise<TokenFigures> {
  const sandbox = await startSandbox();
  const gw = new AsyncFHIRGateway({ maxConnections: 64 });
  try {
    gw.addSource('sandbox', sandbox.connectionString('fhirgate-demo'));
    const bundle = await fetchFirstPatientId(sandbox.fhirBase, sandbox.tokenUrl);
    sandbox.stats.reset();
    const t0 = performance.now();
    const results = await Promise.allSettled(Array.from({ length: calls }, () => gw.read('Patient', bundle, 'sandbox')));
    return {
      calls,
      tokenRequests: sandbox.stats.tokenRequests,
      errors: results.filter((r) => r.status === 'rejected').length,
      seconds: (performance.now() - t0) / 1000,
    };
  } finally {
    await gw.close();
    await sandbox.close();
  }
}

async function fetchFirstPatientId(fhirBase: string, tokenUrl: string): Promise<string> {
  const token = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=fhirgate-demo&client_secret=demo-secret',
  }).then((r) => r.json() as Promise<{ access_token: string }>);
  const bundle = await fetch(`${fhirBase}/Patient?_count=1`, { headers: { authorization: `Bearer ${token.access_token}` } })
    .then((r) => r.json() as Promise<{ entry: Array<{ resource: { id: string } }> }>);
  return bundle.entry[0]!.resource.id;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const f = await benchTokenBurst();
  console.log(`${f.calls} reads on a cold cache: ${f.tokenRequests} token request(s), ${f.errors} errors, ${f.seconds.toFixed(2)} s`);
}
