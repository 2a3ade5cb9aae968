/**
 * A batch or transaction is allowed only when the policy allows every one of its entries, each read as
 * the interaction it asks for (`GET Patient/1` a read, `POST Observation` a create, ...).
 * @module
 */
import type { Caller } from './caller.js';
import { interactionOf } from './interaction.js';
import { decide } from './policy.js';

/** Why the caller may not send this Bundle, or `undefined` when every entry is allowed. */
export function bundlePolicy(caller: Caller, source: string, bundle: Record<string, unknown> | undefined): string | undefined {
  if (bundle?.resourceType !== 'Bundle' || (bundle.type !== 'batch' && bundle.type !== 'transaction')) return 'the body must be a batch or transaction Bundle';
  const entries = Array.isArray(bundle.entry) ? (bundle.entry as { request?: { method?: unknown; url?: unknown; ifNoneExist?: unknown }; resource?: unknown }[]) : [];
  for (const [i, entry] of entries.entries()) {
    const method = entry.request?.method;
    const url = entry.request?.url;
    if (typeof method !== 'string' || typeof url !== 'string') return `entry ${i} has no request.method and request.url`;
    const [path = '', search = ''] = url.split('?', 2);
    const segments = path.split('/').filter((s) => s !== '');
    const ifNoneExist = entry.request?.ifNoneExist;
    const interaction = interactionOf(method.toUpperCase(), segments, search !== '', typeof ifNoneExist === 'string');
    if (interaction === undefined || interaction.name === 'batch' || interaction.name === 'transaction') return `entry ${i} (${method} ${url.slice(0, 100)}) is not a FHIR interaction`;
    const decision = decide(caller, source, interaction, new URLSearchParams(search), { ...(typeof ifNoneExist === 'string' ? { ifNoneExist } : {}), body: entry.resource !== undefined });
    if (!decision.allowed) return `entry ${i} (${method} ${url.slice(0, 100)}): ${decision.reason}`;
  }
  return undefined;
}
