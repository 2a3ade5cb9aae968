/**
 * Agents through the `proxy` option for callers of `request()` outside the gateway's pool (CDS
 * prefetch and its client JWKS, the CloudEvents sink): one keep-alive agent per proxied origin.
 * @module
 */
import type http from 'node:http';
import { originAgent } from './origin-agent.js';
import { checkProxyOptions, proxyFor } from './proxy-options.js';
import type { CheckedProxy, ProxyOptions } from './proxy-options.js';

/** Idle sockets to a proxy (or tunnels through it) are closed after this many milliseconds. */
const IDLE_MS = 5_000;

/**
 * The proxy of one component, checked once (`TypeError` naming `name`), with its agents: `agentFor(url)`
 * is the agent to give `request()` (`undefined` for an upstream reached directly, `NO_PROXY`).
 */
export class ProxyAgents {
  readonly #proxy: CheckedProxy | undefined;
  readonly #agents = new Map<string, http.Agent>();

  constructor(proxy: ProxyOptions | undefined, name: string) {
    this.#proxy = checkProxyOptions(proxy, name);
  }

  /** True when a proxy is configured at all. */
  get configured(): boolean {
    return this.#proxy !== undefined;
  }

  /** The agent through the proxy for `url`'s origin, or `undefined` when `url` is reached directly. */
  agentFor(url: URL): http.Agent | undefined {
    const server = proxyFor(this.#proxy, url);
    if (server === undefined) return undefined;
    let agent = this.#agents.get(url.origin);
    if (agent === undefined) {
      agent = originAgent(url.protocol, { keepAlive: true, maxSockets: Infinity, maxFreeSockets: 4, timeout: IDLE_MS }, server, undefined).agent;
      this.#agents.set(url.origin, agent);
    }
    return agent;
  }

  /** Closes every socket of every agent (a closed component's). */
  close(): void {
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }
}
