/**
 * The options, defaults and status shapes of the keep-alive pool.
 * @module
 */

/** Options of {@link AgentPool}. */
export interface AgentPoolOptions {
  /** Sockets open at once across all origins (busy and idle). Default 100. */
  maxConnections?: number;
  /** Idle keep-alive sockets kept per origin. Default 20. */
  maxKeepaliveConnections?: number;
  /** Seconds an idle socket is kept before it is closed. Default 5. */
  keepaliveExpiry?: number;
}

/** Counts for one origin. */
export interface OriginPoolStatus {
  origin: string;
  /** Sockets carrying a request. */
  active: number;
  /** Idle keep-alive sockets. */
  idle: number;
  /** Requests waiting for a socket. */
  queued: number;
}

/** A JSON-safe picture of the pool: its limits and its counts, in total and per origin. */
export interface AgentPoolStatus {
  /** The limits the pool was built with (camelCase here; HTTP status bodies use snake_case). */
  limits: Readonly<Required<AgentPoolOptions>>;
  totals: { active: number; idle: number; queued: number };
  origins: OriginPoolStatus[];
}

/** Defaults of {@link AgentPool}: 100 connections, 20 idle per origin, 5 s idle expiry. */
export const POOL_DEFAULTS = Object.freeze({ maxConnections: 100, maxKeepaliveConnections: 20, keepaliveExpiry: 5 });
