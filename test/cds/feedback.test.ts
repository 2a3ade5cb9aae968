import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateFeedback } from '../../src/cds/feedback.js';

const at = '2026-11-22T10:00:00Z';

function rejects(body: Record<string, unknown>, field: string): void {
  assert.throws(() => validateFeedback(body), (err: any) => err.code === 'ERR_CDS_REQUEST' && err.status === 400 && err.field === field);
}

test('accepts accepted and overridden items', () => {
  const items = validateFeedback({
    feedback: [
      { card: 'c1', outcome: 'accepted', acceptedSuggestions: [{ id: 's1' }], outcomeTimestamp: at },
      { card: 'c2', outcome: 'overridden', overrideReason: { reason: { code: 'x', display: 'X' }, userComment: 'no' }, outcomeTimestamp: '2026-11-22T10:00:00.123+01:00' },
      { card: 'c3', outcome: 'overridden', outcomeTimestamp: at },
    ],
  });
  assert.deepEqual(items[0], { card: 'c1', outcome: 'accepted', acceptedSuggestions: [{ id: 's1' }], outcomeTimestamp: at });
  assert.equal(items[1]?.overrideReason?.userComment, 'no');
  assert.equal(items.length, 3);
});

test('names the field of every violation', () => {
  rejects({}, 'feedback');
  rejects({ feedback: [] }, 'feedback');
  rejects({ feedback: ['x'] }, 'feedback[0]');
  rejects({ feedback: [{ outcome: 'overridden', outcomeTimestamp: at }] }, 'feedback[0].card');
  rejects({ feedback: [{ card: 'c', outcome: 'ignored', outcomeTimestamp: at }] }, 'feedback[0].outcome');
  rejects({ feedback: [{ card: 'c', outcome: 'overridden' }] }, 'feedback[0].outcomeTimestamp');
  rejects({ feedback: [{ card: 'c', outcome: 'overridden', outcomeTimestamp: '2026-11-22' }] }, 'feedback[0].outcomeTimestamp');
  rejects({ feedback: [{ card: 'c', outcome: 'overridden', outcomeTimestamp: '2026-13-45T99:00:00Z' }] }, 'feedback[0].outcomeTimestamp');
  rejects({ feedback: [{ card: 'c', outcome: 'accepted', outcomeTimestamp: at }] }, 'feedback[0].acceptedSuggestions');
  rejects({ feedback: [{ card: 'c', outcome: 'accepted', acceptedSuggestions: [{}], outcomeTimestamp: at }] }, 'feedback[0].acceptedSuggestions[0].id');
  rejects({ feedback: [{ card: 'c', outcome: 'accepted', acceptedSuggestions: [{ id: 's' }], overrideReason: {}, outcomeTimestamp: at }] }, 'feedback[0].overrideReason');
  rejects({ feedback: [{ card: 'c', outcome: 'overridden', overrideReason: { reason: 'x' }, outcomeTimestamp: at }] }, 'feedback[0].overrideReason.reason');
  rejects({ feedback: [{ card: 'c', outcome: 'overridden', overrideReason: { userComment: 1 }, outcomeTimestamp: at }] }, 'feedback[0].overrideReason.userComment');
});
