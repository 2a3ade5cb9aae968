/**
 * Where the facade's AuditEvents go, off the request path (built after the answer is sent): a `fhir.audit` event through the host's
 * dispatcher (payload `audit_event`: the AuditEvent as JSON, plus flat facts to route on), and the
 * optional audit sink. Nothing is built when nobody would receive it.
 * @module
 */
import { LocalEventDispatcher } from '../events/index.js';
import { emitSafely } from '../events/emit-safely.js';
import type { EventDispatcher } from '../events/types.js';
import { auditEvent, AuditEventWriter, auditText } from './audit-event.js';
import type { AccessFacts, AccessResult } from './audit-event.js';
import type { AuditSink } from './audit-sink.js';

/** The event every access sends. */
export const AUDIT_EVENT_NAME = 'fhir.audit';

/**
 * The facade's audit trail. Accesses are queued as they are recorded and built into AuditEvents in one
 * batch per turn of the event loop (one `setImmediate` for all of them, not one per access).
 */
export class AuditTrail {
  readonly #sink: AuditSink | undefined;
  readonly #writer = new AuditEventWriter();
  #dispatcher: EventDispatcher | null = null;
  #access: AccessFacts[] = [];
  #results: AccessResult[] = [];
  #times: number[] = [];
  readonly #drain = (): void => this.#send();

  constructor(sink: AuditSink | undefined) {
    this.#sink = sink;
  }

  /** Where `fhir.audit` events go (`null`: nowhere). */
  use(dispatcher: EventDispatcher | null): void {
    this.#dispatcher = dispatcher;
  }

  /** Records one access: its AuditEvent is built and sent after the answer, off the request path. */
  record(access: AccessFacts, result: AccessResult): void {
    if (this.#access.length === 0) setImmediate(this.#drain);
    this.#access.push(access);
    this.#results.push(result);
    this.#times.push(Date.now());
  }

  #send(): void {
    const access = this.#access;
    const results = this.#results;
    const times = this.#times;
    this.#access = [];
    this.#results = [];
    this.#times = [];
    const d = this.#dispatcher;
    const emit = d !== null && (!(d instanceof LocalEventDispatcher) || d.hasHandlers(AUDIT_EVENT_NAME));
    if (!emit && this.#sink === undefined) return;
    // The accesses of one search share their facts: the flat facts of their payloads are cleaned once.
    let cleaned: AccessFacts | undefined;
    let source = '';
    let caller: string | null = null;
    for (let i = 0; i < access.length; i++) {
      const facts = access[i]!;
      const result = results[i]!;
      // The sink's AuditEvent an object (its batch is one), the event's one text: each made only for its receiver.
      this.#sink?.add(auditEvent(facts, result, times[i]!));
      if (!emit) continue;
      if (facts !== cleaned) {
        cleaned = facts;
        source = auditText(facts.source);
        caller = facts.caller === undefined ? null : auditText(facts.caller.name);
      }
      emitSafely(d, AUDIT_EVENT_NAME, {
        source,
        interaction: facts.interaction.name,
        outcome: result.outcome,
        caller,
        request_id: facts.requestId,
        trace_id: facts.traceparent?.slice(3, 35) ?? null,
        audit_event: this.#writer.write(facts, result, times[i]!),
      });
    }
  }
}
