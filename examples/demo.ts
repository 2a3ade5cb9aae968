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
 * After the banner, everything is one log on stdout (warnings and errors included): one readable line a
 * record in a terminal, JSON lines when piped (`LOG_FORMAT=json` or `pretty` chooses), one access line per
 * request and one audit line per event at `info`. `LOG_LEVEL` (`debug`, `info`, `warn`, `error`; default
 * `info`) picks how much.
 *
 * @example
 * ```sh
 * npm start
 * PORT=8080 npm start
 * LOG_LEVEL=warn npm start
 * ```
 * @module
 */
import { createLogger, type LogFormat } from '../src/index.js';
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

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
type LogLevel = (typeof LEVELS)[number];

function levelFromEnv(): LogLevel {
  const text = process.env.LOG_LEVEL ?? 'info';
  if (!LEVELS.includes(text as LogLevel)) {
    console.error(`LOG_LEVEL must be one of ${LEVELS.join(', ')}, not "${text.slice(0, 20)}"`);
    process.exit(1);
  }
  return text as LogLevel;
}

/** `LOG_FORMAT` when set; else createLogger's default (readable lines on a terminal, JSON lines when piped). */
function formatFromEnv(): LogFormat | undefined {
  const text = process.env.LOG_FORMAT ?? '';
  if (text === '') return undefined;
  if (text !== 'json' && text !== 'pretty') {
    console.error(`LOG_FORMAT must be json or pretty, not "${text.slice(0, 20)}"`);
    process.exit(1);
  }
  return text;
}

async function main(): Promise<void> {
  const port = portFromEnv();
  // One stream, one format: warnings and errors go to stdout too, like the rest.
  const format = formatFromEnv();
  const logger = createLogger({ level: levelFromEnv(), ...(format === undefined ? {} : { format }), stdout: process.stdout, stderr: process.stdout });
  let demo: Demo;
  try {
    demo = await startDemo({ port, logger });
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
      logger.warn('exiting without waiting', { signal });
      process.exit(1);
    }
    stopping = true;
    logger.info('shutting down', { signal, closing: 'host, gateway, services, sandboxes, key file' });
    demo.close().then(
      () => {
        logger.info('stopped', {});
        process.exit(0);
      },
      (err: unknown) => {
        logger.error('shutdown failed', { error: err instanceof Error ? err.message : String(err) });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

await main();
