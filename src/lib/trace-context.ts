/**
 * W3C Trace Context (Recommendation, level 1): reading and writing `traceparent` and `tracestate`, and
 * the ids of new traces and spans. A leaf: what to continue and where to send it is decided by the host
 * and the transport.
 * @module
 */
import { randomFillSync } from 'node:crypto';
import type { SpanLike, TracerLike } from './tracer.js';

/** One position in a trace: the trace, the span that is the parent of the next call, and the flags. */
export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lowercase hex digits, not all zero: the span that sends (or sent) the call. */
  readonly spanId: string;
  /** The trace flags; bit 0 is `sampled`. Only the bits version 00 defines are kept. */
  readonly flags: number;
  /** The `tracestate` to pass on unchanged, when one came with a valid `traceparent`. */
  readonly state: string | undefined;
  /** The OpenTelemetry span these ids are of, when a tracer made them: the parent of the spans started under this context. */
  readonly span?: SpanLike | undefined;
  /** The OpenTelemetry tracer that starts the spans of this work (the host's or the gateway's), when there is one. */
  readonly tracer?: TracerLike | undefined;
}

/** Version 00's fixed length: `vv-` + 32 + `-` + 16 + `-ff`. */
const LENGTH = 55;
const HEX = /^[0-9a-f]+$/;
const ZEROS = /^0+$/;
/** The flags version 00 defines: bit 0, `sampled`. */
const KNOWN_FLAGS = 0x01;

/**
 * The context a `traceparent` header names, or `undefined` when it is absent or invalid (the caller then
 * starts a new trace; an invalid header is never echoed). Follows the Recommendation's parsing rules:
 * lowercase hex only, all-zero ids invalid, version `ff` invalid, version 00 exactly 55 characters, a
 * higher version read by its first four fields when the next character (if any) is `-`. A repeated
 * header is invalid. `tracestate` (several headers joined with commas) is kept when valid, see
 * {@link readTracestate}.
 */
export function readTraceparent(
  traceparent: string | readonly string[] | undefined,
  tracestate?: string | readonly string[],
): TraceContext | undefined {
  if (typeof traceparent !== 'string' || traceparent.length < LENGTH) return undefined;
  const version = traceparent.slice(0, 2);
  if (!HEX.test(version) || version === 'ff') return undefined;
  if (version === '00' ? traceparent.length !== LENGTH : traceparent.length > LENGTH && traceparent[LENGTH] !== '-') return undefined;
  if (traceparent[2] !== '-' || traceparent[35] !== '-' || traceparent[52] !== '-') return undefined;
  const traceId = traceparent.slice(3, 35);
  const spanId = traceparent.slice(36, 52);
  const flags = traceparent.slice(53, 55);
  if (!HEX.test(traceId) || !HEX.test(spanId) || !HEX.test(flags) || ZEROS.test(traceId) || ZEROS.test(spanId)) return undefined;
  return { traceId, spanId, flags: Number.parseInt(flags, 16) & KNOWN_FLAGS, state: readTracestate(tracestate) };
}

/** The `traceparent` header (version 00) for a call sent from `context`'s span. */
export function formatTraceparent(context: TraceContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.flags === 1 ? '01' : '00'}`;
}

/** Most list members the Recommendation allows in `tracestate`. */
const MAX_MEMBERS = 32;
/** What a `tracestate` is cut to when longer: the Recommendation asks to pass on at least 512 characters. */
const MAX_STATE_LENGTH = 512;
/** Members longer than this go first when the header must be cut. */
const LONG_MEMBER = 128;
/** `simple-key` or `tenant-id@system-id`, then `=` and a value of printable ASCII but `,` and `=`, not ending in a space. */
const MEMBER = /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/**
 * The `tracestate` to pass on, or `undefined` when there is none or it is invalid (a member that breaks
 * the grammar, a key given twice, more than 32 members: the whole header is dropped, as the
 * Recommendation allows). Empty members and the spaces around members are dropped; past 512 characters,
 * members longer than 128 go first, then members from the end.
 */
export function readTracestate(header: string | readonly string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const members = (typeof header === 'string' ? header : header.join(',')).split(',').map((m) => m.trim()).filter((m) => m !== '');
  if (members.length === 0 || members.length > MAX_MEMBERS) return undefined;
  const keys = new Set<string>();
  for (const member of members) {
    if (!MEMBER.test(member)) return undefined;
    const key = member.slice(0, member.indexOf('='));
    if (keys.has(key)) return undefined;
    keys.add(key);
  }
  let kept = members;
  const length = (list: readonly string[]): number => list.reduce((n, m) => n + m.length, list.length - 1);
  if (length(kept) > MAX_STATE_LENGTH) kept = kept.filter((m) => m.length <= LONG_MEMBER);
  while (kept.length > 0 && length(kept) > MAX_STATE_LENGTH) kept = kept.slice(0, -1);
  return kept.length === 0 ? undefined : kept.join(',');
}

/** Random bytes drawn in blocks: one `randomFillSync` per 256 ids instead of one per id. */
const pool = Buffer.alloc(4096);
let used = pool.length;

function randomHex(bytes: number): string {
  for (;;) {
    if (used + bytes > pool.length) {
      randomFillSync(pool);
      used = 0;
    }
    const hex = pool.toString('hex', used, (used += bytes));
    if (!ZEROS.test(hex)) return hex;
  }
}

/**
 * A new trace: random ids, `sampled` set (fhirgate records the trace id in its log lines and
 * AuditEvents, so a receiver that samples by its parent keeps the other half of the trace).
 */
export function startTrace(): TraceContext {
  return { traceId: randomHex(16), spanId: randomHex(8), flags: KNOWN_FLAGS, state: undefined };
}

/**
 * A new span in the trace whose id was recorded earlier (an event's `trace_id`), for work done later on
 * its behalf; `undefined` when `traceId` is no valid trace id.
 */
export function spanInTrace(traceId: unknown): TraceContext | undefined {
  if (typeof traceId !== 'string' || traceId.length !== 32 || !HEX.test(traceId) || ZEROS.test(traceId)) return undefined;
  return { traceId, spanId: randomHex(8), flags: KNOWN_FLAGS, state: undefined };
}

/** The context of a new span in `parent`'s trace: same trace, flags and state, a new span id. */
export function childSpan(parent: TraceContext): TraceContext {
  return { traceId: parent.traceId, spanId: randomHex(8), flags: parent.flags, state: parent.state };
}
