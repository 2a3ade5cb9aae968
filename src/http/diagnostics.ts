/**
 * The `diagnostics_channel` channels fhirgate publishes on. Publishing is free when nobody subscribes.
 * Messages hold the method, the origin and the path only: never a query string (search values may be
 * patient data), never a header, never a token or secret.
 *
 * @module
 */
import diagnostics_channel from 'node:diagnostics_channel';

/** Published when a request is sent: `{ method, origin, path }`. */
export const requestStartChannel = diagnostics_channel.channel('fhirgate:request:start');
/**
 * Published when a request settles: `{ method, origin, path, status?, error?, durationMs, source?, interaction? }`
 * (`source` and `interaction` for a gateway's call to one of its sources).
 */
export const requestEndChannel = diagnostics_channel.channel('fhirgate:request:end');
/**
 * Published before a request is sent again: `{ method, origin, path, attempt, delayMs, status?, error? }`
 * (`attempt` is the number of the try about to be sent, 2 for the first resend; `status` or `error`
 * tells what the previous try got).
 */
export const requestRetryChannel = diagnostics_channel.channel('fhirgate:request:retry');
/**
 * Published when a request that waited for a socket leaves the pool's queue: `{ origin, source?, waitMs, started }`
 * (`started` false: the wait ended by the deadline or an abort). A request that got a socket at once publishes nothing.
 */
export const poolWaitChannel = diagnostics_channel.channel('fhirgate:pool:wait');
/**
 * Published when a token is fetched: `{ origin, path, clientId, source?, status?, error?, errorDescription?, expiresIn?, durationMs }`
 * (`error` and `errorDescription` as the token endpoint said them, capped, every form of the secret removed).
 */
export const authTokenChannel = diagnostics_channel.channel('fhirgate:auth:token');

/** Publishes `message` on `channel` when it has subscribers; builds the message lazily. */
export function publish(channel: diagnostics_channel.Channel, message: () => Record<string, unknown>): void {
  if (channel.hasSubscribers) channel.publish(message());
}
