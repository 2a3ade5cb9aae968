/** Event payloads carry the W3C trace id of the call that caused them: tests that compare payloads whole check it here. */
import assert from 'node:assert/strict';
import type { EventPayload } from '../../src/events/types.js';

/** `payload` without its `trace_id`, after checking that it has one of 32 lowercase hex digits. */
export function withoutTraceId(payload: EventPayload | undefined): EventPayload | undefined {
  if (payload === undefined) return undefined;
  const { trace_id: traceId, ...rest } = payload;
  assert.match(String(traceId), /^[0-9a-f]{32}$/, 'the event names its trace');
  return rest;
}
