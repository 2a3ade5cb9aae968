/**
 * A child process that runs an embedded sandbox, for examples whose own thread blocks (the synchronous
 * `FHIRGateway` waits with `Atomics.wait`, so a server on the same thread could never answer it).
 * It writes one JSON line `{ connectionString, fhirBase }` once listening, and closes the sandbox and
 * exits when its stdin ends (so it also goes away when its parent does).
 * @module
 */
import { startSandbox } from '../../src/sandbox/index.js';

const sandbox = await startSandbox();
process.stdin.resume().once('end', () => void sandbox.close());
process.stdout.write(`${JSON.stringify({ connectionString: sandbox.connectionString(), fhirBase: sandbox.fhirBase })}\n`);
