/** The Fastify builds' upstream connections: one undici Pool per source of {@link SEARCH_BASES}, as a Fastify user fans out. */
import { Pool } from 'undici';
import { SEARCH_BASES } from './fixed-patient.js';

/** A Pool of 64 connections to `upstream` (`http://127.0.0.1:<port>`) per source name. */
export function sourcePools(upstream: string): Map<string, Pool> {
  return new Map(Object.keys(SEARCH_BASES).map((s) => [s, new Pool(upstream, { connections: 64 })]));
}
