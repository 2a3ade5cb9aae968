/**
 * At most {@link TURN_BUDGET_MS} of request work per event-loop turn. Node takes one new connection off a
 * listener per turn, and a saturated server's turn serves one request on every connection it has: with
 * hundreds of connections a turn lasts most of a second, and connections waiting to be accepted enter one
 * per turn (bench/SCALE.md). Past the budget, requests wait in order and run from `setImmediate`, a budget
 * at a time; an immediate scheduled from the check phase runs in the next turn, after one more poll (and
 * accept). Under a closed-loop load the waiting connections send nothing new, so a turn stays near the
 * budget and connections are accepted about one per budget instead of one per full sweep.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The request work one event-loop turn may do before later requests wait for the next turn, in ms. */
export const TURN_BUDGET_MS = 5;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** `handler`, run at once while this turn's requests have taken less than `budgetMs`, else in a later turn. */
export function withTurnBudget(handler: Handler, budgetMs = TURN_BUDGET_MS): Handler {
  const waiting: Array<[IncomingMessage, ServerResponse]> = [];
  let turnStarted: number | undefined;
  const endTurn = () => {
    turnStarted = undefined;
    if (waiting.length === 0) return;
    const started = performance.now();
    while (waiting.length > 0 && performance.now() - started < budgetMs) {
      const [req, res] = waiting.shift()!;
      handler(req, res);
    }
    if (waiting.length > 0) setImmediate(endTurn);
  };
  return (req, res) => {
    const now = performance.now();
    if (turnStarted === undefined) {
      turnStarted = now;
      if (waiting.length === 0) setImmediate(endTurn);
    }
    if (waiting.length === 0 && now - turnStarted < budgetMs) return handler(req, res);
    waiting.push([req, res]);
  };
}
