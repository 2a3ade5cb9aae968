/**
 * What a queued dispatcher reports when it drops events, and the default report: one JSON line on
 * stderr the first time each reason occurs (every drop is counted in `status()` all the same).
 * @module
 */

/** Events a dispatcher gave up, told to a {@link DropLogger} the first time their reason occurs. */
export interface DeliveryDrop {
  /** The dispatcher, named as in its option errors (`CloudEventsDispatcher`, `natsDispatcher`). */
  readonly dispatcher: string;
  /** Why, in words that hold no event data and no secret (`the sink answered 401`, `the queue is full (maxQueue 10000)`). */
  readonly reason: string;
  /** How many events this first drop of the reason gave up (later ones are only counted). */
  readonly events: number;
}

/** Receives the first drop of each reason. What it throws is ignored. */
export type DropLogger = (drop: DeliveryDrop) => void;

/** Distinct reasons remembered per dispatcher: reasons are few (statuses, limits), this bounds a pathological sink. */
const MAX_REASONS = 64;

/** The default {@link DropLogger}: one JSON line on stderr. */
export function logDropToStderr(drop: DeliveryDrop): void {
  process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'events dropped', ...drop })}\n`);
}

/**
 * A report for a {@link DeliveryQueue} that tells `logger` the first drop of each reason, and stays
 * silent after that (the counts keep growing), so that a sink refusing every event writes one line,
 * not one per event.
 */
export function oncePerReason(dispatcher: string, logger: DropLogger): (reason: string, count: number) => void {
  const seen = new Set<string>();
  return (reason, events) => {
    if (seen.has(reason) || seen.size >= MAX_REASONS) return;
    seen.add(reason);
    try {
      logger({ dispatcher, reason, events });
    } catch {
      // A failing logger must not reach the delivery loop.
    }
  };
}
