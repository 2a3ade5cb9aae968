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

/** Student's t at 97.5% for 1–30 degrees of freedom (beyond 30, the normal 1.96 is within 4%). */
const T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];

/** The geometric mean of paired ratios with its 95% interval (a t interval on their logs), and the standard deviation of the logs. */
export interface GeoMean {
  mean: number;
  low: number;
  high: number;
  sdLog: number;
  /** The ratios themselves. */
  values: number[];
}

/** The mean of the logs of `ratios` (at least one): the log of their geometric mean. */
export function meanLog(ratios: number[]): number {
  return ratios.reduce((sum, x) => sum + Math.log(x), 0) / ratios.length;
}

/** {@link GeoMean} of `ratios` (at least two). */
export function geoMean(ratios: number[]): GeoMean {
  const logs = ratios.map(Math.log);
  const n = logs.length;
  const m = meanLog(ratios);
  const sdLog = Math.sqrt(logs.reduce((a, x) => a + (x - m) ** 2, 0) / (n - 1));
  const half = (T975[n - 2] ?? 1.96) * (sdLog / Math.sqrt(n));
  return { mean: Math.exp(m), low: Math.exp(m - half), high: Math.exp(m + half), sdLog, values: ratios };
}
