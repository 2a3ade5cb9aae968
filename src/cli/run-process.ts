/**
 * Runs `fhirgate` as the current process: its arguments, streams, environment and signals.
 * @module
 */
import { main } from './main.js';

/**
 * Runs the CLI on `process.argv` and sets `process.exitCode`. SIGINT and SIGTERM stop a running `serve`
 * cleanly (requests in flight finish); a second signal exits at once.
 */
export async function runProcess(): Promise<void> {
  const stop = new AbortController();
  const onSignal = (): void => {
    if (stop.signal.aborted) process.exit(130);
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), signal: stop.signal });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  // Stopped by a signal, `serve` has closed all it could (or ran out of stopTimeoutMs): nothing may keep
  // the process alive past it.
  if (stop.signal.aborted) process.exit();
}
