/** Runs a sandbox in its own process for the host tests: prints its connection string, stops when stdin ends. */
import { startSandbox } from '../../src/sandbox/index.js';

const sandbox = await startSandbox({ seed: 'a' });
process.stdout.write(`${JSON.stringify({ connectionString: sandbox.connectionString() })}\n`);
process.stdin.resume();
process.stdin.on('end', () => void sandbox.close().then(() => process.exit(0)));
