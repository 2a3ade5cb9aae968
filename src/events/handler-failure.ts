/**
 * What a dispatcher reports when an event handler fails, and the default report: one JSON line on stderr.
 * @module
 */
import type { EventPayload } from './types.js';

/** A handler that threw or rejected, as told to a {@link HandlerFailureLogger}. */
export interface HandlerFailure {
  /** The event the handler was called for. */
  readonly eventName: string;
  /** The pattern the handler was registered with. */
  readonly pattern: string;
  /** What the handler threw or rejected with. */
  readonly error: unknown;
  /** The payload the handler was called with. */
  readonly payload: EventPayload;
}

/** Receives every handler failure. What it throws is ignored. */
export type HandlerFailureLogger = (failure: HandlerFailure) => void;

const MAX_MESSAGE_LENGTH = 300;

/** An error's `message` (never its stack) or the string form of anything else, on one line, cut short. */
export function errorMessage(error: unknown): string {
  let message: string;
  try {
    message = error instanceof Error ? error.message : String(error);
  } catch {
    message = 'unprintable value';
  }
  const flat = message.replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_MESSAGE_LENGTH ? flat : `${flat.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
}

/**
 * The default {@link HandlerFailureLogger}: writes one JSON line to stderr with the event name, the
 * pattern and the error's message (and `code`, when it has a string one). It never writes the stack or
 * the payload.
 */
export function logToStderr(failure: HandlerFailure): void {
  const code = (failure.error as { code?: unknown } | null | undefined)?.code;
  const line = {
    level: 'error',
    msg: 'event handler failed',
    event: failure.eventName,
    pattern: failure.pattern,
    error: errorMessage(failure.error),
    ...(typeof code === 'string' ? { code } : {}),
  };
  process.stderr.write(`${JSON.stringify(line)}\n`);
}
