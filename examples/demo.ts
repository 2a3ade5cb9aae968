/**
 * `npm start`: starts the embedded sandbox (FHIR R4 server + OAuth 2.0 token endpoint) and prints how
 * to reach it. `PORT` picks the port (default 8000; 0 picks a free one). Ctrl-C or SIGTERM stops it.
 *
 * @example
 * ```sh
 * PORT=8080 npm start
 * ```
 * @module
 */
import { isFhirgateError } from '../src/errors.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';

function portFromEnv(): number {
  const text = process.env.PORT ?? '8000';
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) {
    console.error(`PORT must be an integer from 0 to 65535, not "${text}"`);
    process.exit(1);
  }
  return port;
}

async function main(): Promise<void> {
  const port = portFromEnv();
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox({ port });
  } catch (err) {
    console.error(isFhirgateError(err) ? err.message : String(err));
    console.error(`Choose another port, e.g. PORT=${port === 8000 ? 8001 : 8000} npm start`);
    process.exit(1);
  }
  const secret = 'demo-secret';
  console.log(`fhirgate sandbox is running (data set "a", client "fhirgate-demo").

  FHIR base:         ${sandbox.fhirBase}
  Token endpoint:    ${sandbox.tokenUrl}
  Connection string: ${sandbox.connectionString()}

Get a token and read a patient:

  TOKEN=$(curl -s -u fhirgate-demo:${secret} -d grant_type=client_credentials ${sandbox.tokenUrl} \\
    | node -e "process.stdin.on('data', (d) => console.log(JSON.parse(d).access_token))")
  curl -s -H "Authorization: Bearer $TOKEN" ${sandbox.fhirBase}/Patient/a-patient-1

Press Ctrl-C to stop.`);
  const stop = (signal: string): void => {
    console.log(`\n${signal}: closing the sandbox`);
    void sandbox.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

await main();
