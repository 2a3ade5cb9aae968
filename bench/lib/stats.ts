/** Small statistics helpers for the benchmarks: median of runs, min/max, latency percentiles. */

/** The median, min and max of a list of run figures. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  runs: number[];
}

export function summarize(runs: number[]): Summary {
  const sorted = [...runs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)!, runs };
}

/** The p-th percentile (0-100) of latencies, nearest-rank. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** A figure with its spread, for tables: `12,345 (11,900-12,700)`. */
export function fmt(s: Summary, digits = 0): string {
  const f = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  return `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
}

/** Run count from the environment (`BENCH_RUNS`), at least 5 by default. */
export const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 5));
