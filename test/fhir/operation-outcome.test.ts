import assert from 'node:assert/strict';
import { test } from 'node:test';
import { operationOutcome } from '../../src/fhir/index.js';
import { ISSUE_TYPES } from '../../src/fhir/operation-outcome.js';
import { MAX_OUTCOME_MESSAGE_LENGTH, outcomeMessage } from '../../src/fhir/outcome-message.js';

test('operationOutcome builds an OperationOutcome with one issue', () => {
  assert.deepEqual(operationOutcome('error', 'not-found', 'Patient/123 is not known'), {
    resourceType: 'OperationOutcome',
    issue: [{ severity: 'error', code: 'not-found', diagnostics: 'Patient/123 is not known' }],
  });
  assert.deepEqual(operationOutcome('warning', 'informational'), {
    resourceType: 'OperationOutcome',
    issue: [{ severity: 'warning', code: 'informational' }],
  });
  for (const code of ISSUE_TYPES) assert.equal(operationOutcome('information', code).issue[0]?.code, code);
});

test('operationOutcome rejects codes that are not R4B codes, naming the argument', () => {
  assert.throws(() => operationOutcome('bad' as never, 'invalid'), { name: 'RangeError', message: /"severity"/ });
  assert.throws(() => operationOutcome('error', 'not_found'), { name: 'RangeError', message: /"code"/ });
  assert.throws(() => operationOutcome('error', 'invalid', 42 as never), { name: 'TypeError', message: /"diagnostics"/ });
});

test('outcomeMessage reads diagnostics, then details.text, then a coding display, without duplicates', () => {
  const outcome = {
    resourceType: 'OperationOutcome',
    issue: [
      { severity: 'error', code: 'not-found', diagnostics: 'Resource Patient/9 is not known' },
      { severity: 'warning', code: 'informational', details: { text: 'Search was limited' } },
      { severity: 'warning', code: 'informational', details: { coding: [{ code: 'x' }, { display: 'Shown display' }] } },
      { severity: 'error', code: 'not-found', diagnostics: 'Resource Patient/9 is not known' },
      { severity: 'error', code: 'exception' },
    ],
  };
  assert.equal(outcomeMessage(outcome), 'Resource Patient/9 is not known; Search was limited; Shown display');
  assert.equal(outcomeMessage(operationOutcome('error', 'invalid', 'bad id')), 'bad id');
});

test('outcomeMessage flattens control characters and cuts long text', () => {
  const outcome = { resourceType: 'OperationOutcome', issue: [{ diagnostics: 'line one\r\nline\ttwo\u0000 \u001b[31mred' }] };
  assert.equal(outcomeMessage(outcome), 'line one line two [31mred');
  const long = outcomeMessage({ resourceType: 'OperationOutcome', issue: [{ diagnostics: 'x'.repeat(5000) }] });
  assert.equal(long?.length, MAX_OUTCOME_MESSAGE_LENGTH);
  assert.ok(long?.endsWith('…'));
});

test('outcomeMessage returns undefined for anything that is not an OperationOutcome with text', () => {
  for (const value of [undefined, null, 'OperationOutcome', 42, [], {}, { resourceType: 'Patient', issue: [{ diagnostics: 'x' }] },
    { resourceType: 'OperationOutcome' }, { resourceType: 'OperationOutcome', issue: 'oops' },
    { resourceType: 'OperationOutcome', issue: [] }, { resourceType: 'OperationOutcome', issue: [null, 1, 'x', {}] },
    { resourceType: 'OperationOutcome', issue: [{ diagnostics: 7, details: { text: ['x'], coding: 'no' } }] },
    { resourceType: 'OperationOutcome', issue: [{ diagnostics: '  \n ', details: null }] }]) {
    assert.equal(outcomeMessage(value), undefined, JSON.stringify(value));
  }
});
