/**
 * `fhirgate serve`'s OpenTelemetry tracer: `trace.getTracer('fhirgate')` of the `@opentelemetry/api` that
 * the user's project holds (resolved from the working directory), when an SDK is registered with it (say
 * by `node --import ./otel.mjs`). fhirgate itself depends on no `@opentelemetry/*` package: no API
 * installed, or no SDK registered, is no tracing and no error.
 * @module
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TracerLike } from '../lib/tracer.js';

/** The parts of `@opentelemetry/api` read here. */
interface OpenTelemetryAPI {
  readonly trace: { getTracer(name: string): TracerLike };
  /** The tracer `getTracer` gives while no SDK is registered. */
  readonly ProxyTracer: abstract new (...args: never[]) => unknown;
}

/**
 * The tracer of the user's OpenTelemetry SDK, or `undefined` when `@opentelemetry/api` cannot be
 * resolved from `cwd` or no SDK is registered (its `getTracer` then answers a `ProxyTracer`, which
 * records nothing).
 */
export async function userTracer(cwd: string): Promise<TracerLike | undefined> {
  let api: Partial<OpenTelemetryAPI>;
  try {
    const entry = createRequire(join(cwd, 'package.json')).resolve('@opentelemetry/api');
    api = (await import(pathToFileURL(entry).href)) as Partial<OpenTelemetryAPI>;
  } catch {
    return undefined;
  }
  if (typeof api.trace?.getTracer !== 'function' || typeof api.ProxyTracer !== 'function') return undefined;
  const tracer = api.trace.getTracer('fhirgate');
  return tracer instanceof api.ProxyTracer ? undefined : tracer;
}
