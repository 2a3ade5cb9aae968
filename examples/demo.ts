/**
 * `npm start`: the whole of fhirgate in one process. Two embedded FHIR sandboxes with different data
 * (`ehr-a` with a client secret, `ehr-b` with a JWT assertion signed by a key made at start) behind one
 * `AsyncFHIRGateway` with transform and aggregate handlers, a CDS Hooks service and a NoteReader SOAP
 * service, all in one host, with an audit trail of every event. It prints the URLs to open (the docs page
 * first) and `curl` commands to paste.
 *
 * `PORT` picks the port (default 8000; 0 picks a free one, and the banner says which). A busy port
 * exits with code 1 and a hint. Ctrl-C or SIGTERM shuts down cleanly (exit code 0); a second Ctrl-C
 * exits at once (code 1), still removing the key file.
 *
 * @example
 * ```sh
 * npm start
 * PORT=8080 npm start
 * ```
 * @module
 */
import { banner } from './demo/banner.js';
import { startDemo, type Demo } from './demo/start-demo.js';

const DEFAULT_PORT = 8000;

function portFromEnv(): number {
  const text = process.env.PORT ?? String(DEFAULT_PORT);
  const port = Number(text);
  if (!/^\d{1,5}$/.test(text) || port > 65535) {
    console.error(`PORT must be an integer from 0 to 65535, not "${text}"`);
    process.exit(1);
  }
  return port;
}

async function main(): Promise<void> {
  const port = portFromEnv();
  let demo: Demo;
  try {
    demo = await startDemo({ port });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      console.error(`Port ${port} is already in use. Stop what uses it, or choose another port: PORT=${port === DEFAULT_PORT ? DEFAULT_PORT + 1 : DEFAULT_PORT} npm start (PORT=0 picks a free one).`);
    } else {
      console.error(`The demo could not start: ${err instanceof Error ? err.message : String(err)}`);
    }
    process.exit(1);
  }
  console.log(banner(demo));
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second Ctrl-C: leave now (process.exit still runs the exit hook that removes the key file).
      console.error(`${signal} again: exiting without waiting`);
      process.exit(1);
    }
    stopping = true;
    console.log(`\n${signal}: shutting down (host, gateway, services, sandboxes, key file)`);
    demo.close().then(
      () => {
        console.log('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        console.error(`shutdown failed: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

await main();
