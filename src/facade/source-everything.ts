/**
 * What `$everything` needs of a source's CapabilityStatement: whether it answers `Patient/[id]/$everything`
 * itself (the `everything` operation on Patient), and else which types it searches with which
 * parameters. Kept five minutes per source and base URL (a replaced source is asked again). A statement
 * that cannot be had is `undefined` for this request and asked for again on the next one.
 * @module
 */
import type { RouteRequest } from '../mount/index.js';
import type { Caller } from './caller.js';
import type { FacadeContext } from './facade-context.js';
import { sourceFacts } from './federated-capabilities.js';
import type { SourceFacts } from './federated-capabilities.js';

/** How long a source's answer is kept. */
const KEPT_MS = 300_000;

/** Per facade: `<source> <base URL>` → when asked, and the answer (`undefined`: no statement). */
const kept = new WeakMap<FacadeContext, Map<string, { readonly at: number; readonly answer: Promise<SourceFacts | undefined> }>>();

/** The facts of `source`'s statement (asked through its limits, as `caller`), `undefined` when it has none. */
export async function statedFacts(ctx: FacadeContext, req: RouteRequest, caller: Caller, source: string): Promise<SourceFacts | undefined> {
  let known = kept.get(ctx);
  if (known === undefined) kept.set(ctx, (known = new Map()));
  const key = `${source} ${ctx.gateway.sourceBaseUrl(source)}`;
  const hit = known.get(key);
  if (hit !== undefined && Date.now() - hit.at < KEPT_MS) return hit.answer;
  if (known.size >= 256) known.clear();
  const answer = sourceFacts(ctx, req, caller, source);
  known.set(key, { at: Date.now(), answer });
  const facts = await answer;
  if (facts === undefined && known.get(key)?.answer === answer) known.delete(key);
  return facts;
}
