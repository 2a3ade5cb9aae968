/**
 * Waiting for the process to be asked to stop: what long-running commands (`serve`, `sandbox`) do
 * between start-up and clean-up.
 * @module
 */

/** Resolves once `signal` aborts (SIGINT or SIGTERM, see `runProcess`); never without a signal. */
export function untilStopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal === undefined) return;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
