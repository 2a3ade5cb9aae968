/**
 * The agent of one origin: direct, or through an HTTP proxy (a `CONNECT` tunnel for `https`, absolute-form
 * requests for `http`), with the source's TLS settings.
 * @module
 */
import http from 'node:http';
import https from 'node:https';
import { connect as netConnect } from 'node:net';
import type { Socket } from 'node:net';
import type { CheckedTLS } from './tls-options.js';
import type { ProxyServer } from './proxy-options.js';
import { openTunnel } from './tunnel.js';

/** The agent's connection limits, as `http.Agent` takes them. */
export interface AgentLimits {
  keepAlive: boolean;
  maxSockets: number;
  maxFreeSockets: number;
  /** Milliseconds an idle socket of an agent no pool expires is kept (for `request()`'s own agents). */
  timeout?: number;
}

/**
 * Set on an agent whose `http` requests go to a proxy: the request target is then the absolute URL and
 * the proxy's credentials (if any) go in `Proxy-Authorization` on every request. Read by the exchange.
 */
export const FORWARD_PROXY = Symbol('fhirgate.forwardProxy');

/** An agent, possibly marked with {@link FORWARD_PROXY}, and whether its connections open asynchronously (tunnels). */
export interface OriginAgent {
  readonly agent: http.Agent & { [FORWARD_PROXY]?: ProxyServer };
  /** True: `createConnection` answers through its callback (a tunnel), not at once. */
  readonly tunnels: boolean;
}

/** A new agent for `protocol` (`http:`/`https:`) through `proxy` (or direct) with `tls` (for https). */
export function originAgent(protocol: string, limits: AgentLimits, proxy: ProxyServer | undefined, tls: CheckedTLS | undefined): OriginAgent {
  const options = { ...limits, scheduling: 'lifo' as const };
  if (protocol !== 'https:') {
    const agent: OriginAgent['agent'] = new http.Agent(options);
    if (proxy === undefined) return { agent, tunnels: false };
    agent[FORWARD_PROXY] = proxy;
    agent.createConnection = (() => netConnect({ host: proxy.host, port: proxy.port })) as typeof agent.createConnection;
    return { agent, tunnels: false };
  }
  const agent = new https.Agent(tls === undefined ? options : { ...options, ...definedOnly(tls) });
  if (proxy === undefined) return { agent, tunnels: false };
  agent.createConnection = ((opts: Parameters<typeof openTunnel>[1], callback: (err: Error | null, socket?: Socket) => void) => {
    openTunnel(proxy, opts, callback);
    return undefined;
  }) as unknown as typeof agent.createConnection;
  return { agent, tunnels: true };
}

/** The settings that are set: an `undefined` `ca` would still replace Node's CA list in some versions. */
function definedOnly(tls: CheckedTLS): Partial<CheckedTLS> {
  return Object.fromEntries(Object.entries(tls).filter(([, v]) => v !== undefined)) as Partial<CheckedTLS>;
}
