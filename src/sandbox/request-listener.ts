/**
 * The sandbox's `(req, res)` listener: counts the request, applies the fault switches, checks the
 * bearer token, runs the route, and turns every failure into an OperationOutcome (never a stack trace).
 * @module
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SandboxContext } from './context.js';
import { failureOf } from './failure.js';
import type { FaultAction } from './faults.js';
import { FHIR_JSON, sendJSON, sendOutcome, sendText } from './reply.js';
import { resolveRoute } from './routes.js';

const REALM = 'Bearer realm="fhirgate-sandbox"';

/** True when the request carries a valid, unexpired bearer token; otherwise answers 401. */
function authorized(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse): boolean {
  const token = /^Bearer +([\x21-\x7e]+) *$/i.exec(req.headers.authorization ?? '')?.[1];
  if (token === undefined) {
    sendOutcome(res, 401, 'login', 'a bearer access token is required', { 'www-authenticate': REALM });
    return false;
  }
  const state = ctx.tokens.check(token);
  if (state === 'valid') return true;
  const why = state === 'expired' ? 'the access token expired' : 'the access token is not valid';
  sendOutcome(res, 401, state === 'expired' ? 'expired' : 'login', why, {
    'www-authenticate': `${REALM}, error="invalid_token", error_description="${why}"`,
  });
  return false;
}

function sendFault(res: ServerResponse, fault: Extract<FaultAction, { kind: 'fail' }>): void {
  const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter };
  if (fault.body === undefined) {
    sendOutcome(res, fault.status, fault.status === 429 ? 'throttled' : 'transient', `fault injected: ${fault.status}`, headers);
  } else if (typeof fault.body === 'string') {
    sendText(res, fault.status, fault.body, 'text/plain; charset=utf-8', headers);
  } else {
    sendJSON(res, fault.status, fault.body, headers, FHIR_JSON);
  }
}

function answerError(ctx: SandboxContext, res: ServerResponse, err: unknown): void {
  if (ctx.signal.aborted) {
    res.destroy();
    return;
  }
  const { status, code, message } = failureOf(err);
  sendOutcome(res, status, code, message, status === 413 ? { connection: 'close' } : {});
}

async function handle(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = req.method ?? 'GET';
  const { route, query } = resolveRoute(method, req.url ?? '/');
  ctx.stats.countRequest(method, route.kind);
  const target = route.kind === 'token' ? 'token' : 'fhir';
  const delay = ctx.faults.latencyFor(target);
  if (delay > 0) await sleep(delay, undefined, { signal: ctx.signal });
  const fault = ctx.faults.take(target);
  if (fault?.kind === 'drop') {
    req.socket.destroy();
    return;
  }
  if (fault?.kind === 'fail') return sendFault(res, fault);
  if (!route.public && !ctx.options.open && !authorized(ctx, req, res)) return;
  await route.run(ctx, req, res, query);
}

/** The listener of a sandbox's HTTP server. */
export function requestListener(ctx: SandboxContext): RequestListener {
  return (req, res) => {
    handle(ctx, req, res).catch((err: unknown) => answerError(ctx, res, err));
  };
}
