/**
 * The request work of one event-loop turn is bounded, so that a saturated server still reaches the poll
 * phase (and accepts a new connection) every few milliseconds; requests past the budget run in order in
 * later turns, none is lost.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { test } from 'node:test';
import { TURN_BUDGET_MS, withTurnBudget } from '../../src/host/turn-budget.js';

const spin = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

test('past the turn budget, requests wait for later turns, in order; each later turn runs about a budget of them', async () => {
  const ran: Array<{ id: number; turn: number }> = [];
  let turn = 0;
  const handler = withTurnBudget((req) => {
    ran.push({ id: Number(req.url), turn });
    spin(TURN_BUDGET_MS / 2);
  });
  // Twelve requests arrive in one turn (one poll phase of a saturated server), each costing half a budget.
  for (let id = 0; id < 12; id += 1) handler({ url: String(id) } as IncomingMessage, {} as ServerResponse);
  const firstTurn = ran.length;
  assert.ok(firstTurn >= 1 && firstTurn <= 3, `the first turn ran ${firstTurn} of 12 (a budget's worth), not all`);
  // Count the turns that follow (setImmediate callbacks scheduled from the check phase run one turn later).
  while (ran.length < 12 && turn < 100) {
    turn += 1;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual(ran.map((r) => r.id), [...Array(12).keys()], 'every request ran, first come first served');
  assert.ok(turn >= 3, `the rest ran over several turns (${turn}), not in one`);
  const perTurn = new Map<number, number>();
  for (const r of ran) perTurn.set(r.turn, (perTurn.get(r.turn) ?? 0) + 1);
  for (const [n, count] of perTurn) assert.ok(count <= 3, `turn ${n} ran ${count}: more than a budget`);
});

test('under the budget a request runs at once, in the same turn', () => {
  let ran = 0;
  const handler = withTurnBudget(() => void (ran += 1));
  handler({} as IncomingMessage, {} as ServerResponse);
  handler({} as IncomingMessage, {} as ServerResponse);
  assert.equal(ran, 2);
});
