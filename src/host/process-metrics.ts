/**
 * The process metrics operators expect next to the host's own, under the usual names (those of
 * prom-client's defaults): CPU, resident memory, heap, event-loop lag, GC time, open file descriptors
 * and active handles.
 * @module
 */
import { readdirSync } from 'node:fs';
import { constants, PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks';
import type { IntervalHistogram } from 'node:perf_hooks';
import { HistogramCounts, type MetricFamily } from './prometheus.js';

const GC_KINDS: Readonly<Record<number, string>> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/** Open file descriptors, where `/proc` tells (Linux); `undefined` elsewhere. */
function openFds(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

const gauge = (name: string, help: string, value: number): MetricFamily => ({ name, type: 'gauge', help, samples: [{ labels: {}, value }] });

/**
 * Samples this process for `/metrics`. Watches the event loop (20 ms resolution) and GC pauses until
 * {@link ProcessMetrics.close}; the lag figures cover the time since the previous collection.
 */
export class ProcessMetrics {
  readonly #started = Date.now() / 1000;
  readonly #loop: IntervalHistogram = monitorEventLoopDelay({ resolution: 20 });
  readonly #gc = new Map<string, HistogramCounts>();
  readonly #observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = GC_KINDS[((entry as { detail?: { kind?: number } }).detail)?.kind ?? -1] ?? 'other';
      let h = this.#gc.get(kind);
      if (h === undefined) this.#gc.set(kind, (h = new HistogramCounts()));
      h.observe(entry.duration / 1000);
    }
  });

  constructor() {
    this.#loop.enable();
    this.#observer.observe({ entryTypes: ['gc'] });
  }

  /** The families, read now. */
  collect(): MetricFamily[] {
    const cpu = process.cpuUsage();
    const memory = process.memoryUsage();
    const resources = new Map<string, number>();
    for (const type of process.getActiveResourcesInfo()) resources.set(type, (resources.get(type) ?? 0) + 1);
    // Nanoseconds; NaN-free when the loop was not sampled yet.
    const lag = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0);
    const families: MetricFamily[] = [
      { name: 'process_cpu_user_seconds_total', type: 'counter', help: 'User CPU time spent, in seconds.', samples: [{ labels: {}, value: cpu.user / 1e6 }] },
      { name: 'process_cpu_system_seconds_total', type: 'counter', help: 'System CPU time spent, in seconds.', samples: [{ labels: {}, value: cpu.system / 1e6 }] },
      gauge('process_start_time_seconds', 'Start time of the process since the Unix epoch, in seconds.', Math.round(this.#started)),
      gauge('process_resident_memory_bytes', 'Resident memory size, in bytes.', memory.rss),
      gauge('nodejs_heap_size_total_bytes', 'V8 heap size, in bytes.', memory.heapTotal),
      gauge('nodejs_heap_size_used_bytes', 'V8 heap used, in bytes.', memory.heapUsed),
      gauge('nodejs_external_memory_bytes', 'Memory of C++ objects bound to JavaScript objects, in bytes.', memory.external),
      gauge('nodejs_eventloop_lag_mean_seconds', 'Mean event-loop delay since the last scrape, in seconds.', lag(this.#loop.mean)),
      gauge('nodejs_eventloop_lag_p99_seconds', '99th percentile of the event-loop delay since the last scrape, in seconds.', lag(this.#loop.percentile(99))),
      gauge('nodejs_eventloop_lag_max_seconds', 'Longest event-loop delay since the last scrape, in seconds.', lag(this.#loop.max)),
      { name: 'nodejs_gc_duration_seconds', type: 'histogram', help: 'Garbage collection pauses, by kind, in seconds.', samples: [...this.#gc].flatMap(([kind, h]) => h.samples({ kind })) },
      { name: 'nodejs_active_resources', type: 'gauge', help: 'Resources keeping the event loop alive (handles, requests, timers), by type.', samples: [...resources].map(([type, value]) => ({ labels: { type }, value })) },
    ];
    const fds = openFds();
    if (fds !== undefined) families.push(gauge('process_open_fds', 'Open file descriptors.', fds));
    this.#loop.reset();
    return families;
  }

  /** Stops watching the event loop and GC. Idempotent. */
  close(): void {
    this.#loop.disable();
    this.#observer.disconnect();
  }
}
