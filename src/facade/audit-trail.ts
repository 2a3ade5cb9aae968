/**
 * Where the facade's AuditEvents go, off the request path (built after the answer is sent): a `fhir.audit` event through the host's
 * dispatcher (payload `audit_event`: the AuditEvent as JSON, plus flat facts to route on), and the
 * optional audit sink. Nothing is built when nobody would receive it.
 * @module
 */
import { LocalEventDispatcher } from '../events/index.js';
import { emitSafely } from '../events/emit-safely.js';
import type { EventDispatcher } from '../events/types.js';
import { auditEvent } from './audit-event.js';
import type { AuditFacts } from './audit-event.js';
import type { AuditSink } from './audit-sink.js';

/** The event every access sends. */
export const AUDIT_EVENT_NAME = 'fhir.audit';

/** The facade's audit trail. */
export class AuditTrail {
  readonly #sink: AuditSink | undefined;
  #dispatcher: EventDispatcher | null = null;

  constructor(sink: AuditSink | undefined) {
    this.#sink = sink;
  }

  /** Where `fhir.audit` events go (`null`: nowhere). */
  use(dispatcher: EventDispatcher | null): void {
    this.#dispatcher = dispatcher;
  }

  /** Records one access: the AuditEvent is built and sent after the answer, off the request path. */
  record(facts: AuditFacts): void {
    const recorded = new Date();
    setImmediate(() => this.#send({ ...facts, recorded }));
  }

  #send(facts: AuditFacts): void {
    const d = this.#dispatcher;
    const emit = d !== null && (!(d instanceof LocalEventDispatcher) || d.hasHandlers(AUDIT_EVENT_NAME));
    if (!emit && this.#sink === undefined) return;
    const event = auditEvent(facts);
    this.#sink?.add(event);
    if (emit) {
      emitSafely(d, AUDIT_EVENT_NAME, {
        source: facts.source,
        interaction: facts.interaction.name,
        outcome: facts.outcome,
        caller: facts.caller?.name ?? null,
        request_id: facts.requestId,
        audit_event: JSON.stringify(event),
      });
    }
  }
}
