/**
 * The options, defaults and status shapes of the keep-alive pool.
 * @module
 */
import type { ProxyOptions } from './proxy-options.js';

/** Options of {@link AgentPool}. */
export interface AgentPoolOptions {
  /** Sockets open at once across all origins (busy and idle). Default 100. */
  maxConnections?: number;
  /** Idle keep-alive sockets kept per origin. Default 20. */
  maxKeepaliveConnections?: number;
  /** Seconds an idle socket is kept before it is closed. Default 5. */
  keepaliveExpiry?: number;
  /** The HTTP proxy upstreams are reached through (see {@link ProxyOptions}). Default: none, every connection direct. */
  proxy?: ProxyOptions;
}

/** The pool's limits after validation. */
export type PoolLimits = Readonly<Required<Omit<AgentPoolOptions, 'proxy'>>>;

/** Counts for one origin. */
export interface OriginPoolStatus {
  origin: string;
  /** Sockets carrying a request (tunnels through the proxy being opened included). */
  active: number;
  /** Idle keep-alive sockets. */
  idle: number;
  /** Requests waiting for a socket. */
  queued: number;
}

/** A JSON-safe picture of the pool: its limits and its counts, in total and per origin. */
export interface AgentPoolStatus {
  /** The limits the pool was built with (camelCase here; HTTP status bodies use snake_case). */
  limits: PoolLimits;
  totals: { active: number; idle: number; queued: number };
  origins: OriginPoolStatus[];
}

/** Defaults of {@link AgentPool}: 100 connections, 20 idle per origin, 5 s idle expiry. */
export const POOL_DEFAULTS = Object.freeze({ maxConnections: 100, maxKeepaliveConnections: 20, keepaliveExpiry: 5 });
