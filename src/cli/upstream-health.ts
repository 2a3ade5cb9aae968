/**
 * Why a source fails, told to the operator: `fhirgate serve` reads the gateway's `diagnostics_channel`
 * messages (`fhirgate:auth:token`, `fhirgate:request:end`) and logs one line per source each time its
 * state changes: its token refused by the token endpoint (with the OAuth `error` and `error_description`),
 * its token endpoint or FHIR server unreachable, its FHIR server answering 5xx, and back to healthy. The
 * messages hold no secret, no token and no query string; neither do the lines.
 * @module
 */
import diagnostics_channel from 'node:diagnostics_channel';
import { parseConnectionString } from '../auth/index.js';
import type { Logger } from '../mount/index.js';

const REQUEST_END = 'fhirgate:request:end';
const AUTH_TOKEN = 'fhirgate:auth:token';
const TOKEN_STATES = ['token-refused', 'token-unreachable'];
const SERVER_STATES = ['unreachable', 'upstream-5xx'];

/** What the watcher knows of one source: where its server and its token endpoint are. */
interface Watched {
  readonly name: string;
  readonly origin: string;
  /** `origin + path` of its configured token endpoint, if any. */
  readonly tokenEndpoint: string | undefined;
  readonly clientId: string | undefined;
  state: string;
}

/** A state and the line that announces it. */
interface Change {
  readonly state: string;
  readonly level: 'warn' | 'info';
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

/** The state a token message puts its source in. */
function tokenChange(m: Record<string, unknown>): Change {
  if (m['error'] === undefined) return { state: 'ok', level: 'info', message: 'source recovered: token issued', fields: {} };
  if (m['status'] === undefined) return { state: 'token-unreachable', level: 'warn', message: 'source token endpoint unreachable', fields: { error: m['error'] } };
  return {
    state: 'token-refused',
    level: 'warn',
    message: 'source token refused by the token endpoint',
    fields: { status: m['status'], error: m['error'], ...(m['errorDescription'] === undefined ? {} : { error_description: m['errorDescription'] }) },
  };
}

/** The state a request message puts its source in. */
function requestChange(m: Record<string, unknown>): Change {
  const status = typeof m['status'] === 'number' ? m['status'] : undefined;
  if (status === undefined) return { state: 'unreachable', level: 'warn', message: 'source unreachable', fields: { error: m['error'] ?? 'unknown' } };
  if (status >= 500) return { state: 'upstream-5xx', level: 'warn', message: 'source answers with server errors', fields: { status } };
  return { state: 'ok', level: 'info', message: 'source recovered: answering again', fields: { status } };
}

/**
 * Watches the sources of `sources` (name → connection string) and logs their state changes through
 * `logger`; a source starts healthy, so the first line is its first failure. Returns the function that
 * stops watching.
 */
export function watchUpstreams(sources: ReadonlyMap<string, string>, logger: Logger): () => void {
  const watched: Watched[] = [...sources].map(([name, connectionString]) => {
    const config = parseConnectionString(connectionString);
    const token = config.auth?.tokenUrl === undefined ? undefined : new URL(config.auth.tokenUrl);
    return { name, origin: config.origin, tokenEndpoint: token === undefined ? undefined : `${token.origin}${token.pathname}`, clientId: config.auth?.clientId, state: 'ok' };
  });
  // A token issued ends a token failure only, an answer a server failure only: each says nothing of the other.
  const apply = (matches: readonly Watched[], change: Change, ends: readonly string[]): void => {
    for (const source of matches) {
      if (source.state === change.state || (change.state === 'ok' && !ends.includes(source.state))) continue;
      source.state = change.state;
      logger[change.level](change.message, { source: source.name, state: change.state, ...change.fields });
    }
  };
  const onToken = (message: unknown): void => {
    const m = message as Record<string, unknown>;
    const endpoint = `${String(m['origin'])}${String(m['path'])}`;
    apply(watched.filter((s) => s.clientId === m['clientId'] && (s.tokenEndpoint === undefined || s.tokenEndpoint === endpoint)), tokenChange(m), TOKEN_STATES);
  };
  const onRequest = (message: unknown): void => {
    const m = message as Record<string, unknown>;
    const endpoint = `${String(m['origin'])}${String(m['path'])}`;
    // A token request is told by its own message, with the endpoint's words.
    if (watched.some((s) => s.tokenEndpoint === endpoint)) return;
    apply(watched.filter((s) => s.origin === m['origin']), requestChange(m), SERVER_STATES);
  };
  diagnostics_channel.subscribe(AUTH_TOKEN, onToken);
  diagnostics_channel.subscribe(REQUEST_END, onRequest);
  return () => {
    diagnostics_channel.unsubscribe(AUTH_TOKEN, onToken);
    diagnostics_channel.unsubscribe(REQUEST_END, onRequest);
  };
}
