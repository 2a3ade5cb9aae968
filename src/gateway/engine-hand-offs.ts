/**
 * What the facade hands to the rooms beside the engine: a Bulk Data export's view of the engine, and
 * the sync gateway's worker's way to the engine of the gateway it hosts.
 * @module
 */
import type { BulkHost } from './bulk/index.js';
import type { GatewayEngine } from './core/engine.js';
import type { SourceSettings } from './core/source-settings.js';

/** Each `AsyncFHIRGateway`'s engine (set by its constructor), for {@link addCheckedSource}. */
export const engines = new WeakMap<object, GatewayEngine>();

/**
 * Adds a source whose connection string and key options were parsed on another thread (the sync
 * gateway's calling thread): they are not parsed again.
 */
export function addCheckedSource(gateway: object, name: string, settings: SourceSettings): void {
  engines.get(gateway)!.addSettings(name, settings);
}

/**
 * What a Bulk Data export needs of the engine: each request is a call in flight (so `close()` waits
 * for it), a source is refused once closed (`ERR_CLOSED`), an event's payload is built only when
 * someone listens, and a line is at most `maxResponseBytes`.
 */
export function bulkHostOf(engine: GatewayEngine): BulkHost {
  return {
    source: (name) => engine.openSource(name),
    call: (src, call) => engine.send(src, call),
    closed: () => engine.closed,
    emit: (name, payload) => {
      if (engine.events.wants(name)) engine.events.emit(name, payload());
    },
    maxLineBytes: engine.maxResponseBytes,
    maxConnections: engine.poolStatus().limits.maxConnections,
  };
}
