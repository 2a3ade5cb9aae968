/**
 * The primary's view of the workers' metrics, so that a scrape of `/metrics` on any worker shows the
 * whole cluster: counters and histograms of fhirgate summed over the workers (and over the workers that
 * have exited, so that they only grow), everything else (gauges, the process metrics) per worker with a
 * `worker` label (its pid).
 * @module
 */
import type { Worker } from 'node:cluster';
import type { MetricFamily, Sample } from '../host/index.js';
import type { PrimaryMessage } from './messages.js';

/** How long a scrape waits for a worker; one that does not answer in time counts with its last figures. */
const ANSWER_MS = 2_000;

/** Summed over workers: fhirgate's own counters and histograms. A process's counters (CPU) stay its own. */
const summed = (f: MetricFamily): boolean => f.name.startsWith('fhirgate_') && f.type !== 'gauge';

const keyOf = (s: Sample): string => `${s.suffix ?? ''}${JSON.stringify(s.labels)}`;

/**
 * Merges per-worker families: summed families add up sample by sample (with `departed`, the summed
 * families of exited workers), the others get a `worker` label.
 */
export function mergeFamilies(perWorker: ReadonlyArray<readonly [string, readonly MetricFamily[]]>, departed: readonly MetricFamily[]): MetricFamily[] {
  const merged = new Map<string, { family: MetricFamily; samples: Map<string, Sample> }>();
  const add = (family: MetricFamily, worker: string | undefined) => {
    let entry = merged.get(family.name);
    if (entry === undefined) merged.set(family.name, (entry = { family, samples: new Map() }));
    for (const sample of family.samples) {
      const labelled = summed(family) || worker === undefined ? sample : { ...sample, labels: { ...sample.labels, worker } };
      const key = keyOf(labelled);
      const before = entry.samples.get(key);
      entry.samples.set(key, before === undefined ? labelled : { ...before, value: before.value + labelled.value });
    }
  };
  for (const [worker, families] of perWorker) for (const family of families) add(family, worker);
  for (const family of departed) add(family, undefined);
  return [...merged.values()].map(({ family, samples }) => ({ name: family.name, type: family.type, help: family.help, samples: [...samples.values()] }));
}

/** Gathers the workers' families for a scrape, and keeps what exited workers counted. */
export class ClusterMetrics {
  readonly #last = new Map<Worker, readonly MetricFamily[]>();
  readonly #pending = new Map<number, () => void>();
  #departed: MetricFamily[] = [];
  #nextId = 0;

  /** Asks every worker in `workers` for its families and resolves to the merged cluster view. */
  async gather(workers: readonly Worker[]): Promise<MetricFamily[]> {
    const id = ++this.#nextId;
    const asked = workers.filter((w) => w.isConnected());
    let left = asked.length;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ANSWER_MS);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      if (left === 0) return done();
      this.#pending.set(id, () => {
        if (--left === 0) done();
      });
      for (const worker of asked) worker.send({ fhirgate: 'cluster', event: 'metrics', id } satisfies PrimaryMessage);
    });
    this.#pending.delete(id);
    return mergeFamilies([...this.#last].map(([w, families]) => [String(w.process.pid ?? w.id), families] as const), this.#departed);
  }

  /** A worker's families: the answer to scrape `id`, or its last ones when it stops (`id` undefined). */
  answer(worker: Worker, id: number | undefined, families: unknown): void {
    if (Array.isArray(families)) this.#last.set(worker, families as MetricFamily[]);
    if (id !== undefined) this.#pending.get(id)?.();
  }

  /** `worker` has exited: its summed families are kept (so that totals never go down), its gauges dropped. */
  exited(worker: Worker): void {
    const last = this.#last.get(worker);
    this.#last.delete(worker);
    if (last !== undefined) this.#departed = mergeFamilies([], [...this.#departed, ...last.filter(summed)]);
  }
}
