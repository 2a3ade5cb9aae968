/**
 * Where a bench run's figures go: Markdown sections in bench/RESULTS.md (each workload between its own
 * markers, so that running one workload replaces only its section) and bench/results.json (every
 * contender's median/min/max and its ratio to the workload's baseline, for scripts).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import type { Summary } from './stats.js';

/** One figure of one contender, with its ratio to the baseline of its case. */
export interface ContenderJson {
  median: number;
  min: number;
  max: number;
  runs: number[];
  /** median / baseline median; 1 for the baseline itself. */
  ratio: number;
}

/** One measured case of a workload (a concurrency, a connection count, ...). */
export interface CaseJson {
  case: string;
  /** What the figures count: `req/s`, `ms`, `MB`, ... */
  unit: string;
  /** `higher` when more is better (throughput), `lower` when less is (latency, memory). */
  better: 'higher' | 'lower';
  baseline: string;
  contenders: Record<string, ContenderJson>;
}

export interface WorkloadJson {
  date: string;
  /** The 1-minute load average when the workload started. */
  loadAtStart?: number;
  /** The Node versions the workload's servers ran on (workloads that run them on several). */
  serverNodes?: string[];
  cases: CaseJson[];
}

export interface ResultsJson {
  machine: string;
  date: string;
  node: string;
  runs: number;
  workloads: Record<string, WorkloadJson>;
}

/** This machine in one line. */
export function machine(): string {
  return `${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}`;
}

/**
 * A case from summaries: every contender's median/min/max and its ratio to `baseline`'s median.
 *
 * @example
 * ```ts
 * caseOf('16 connections', 'req/s', 'higher', 'bare node:http', { 'bare node:http': s1, 'fhirgate host': s2 });
 * ```
 */
export function caseOf(name: string, unit: string, better: 'higher' | 'lower', baseline: string, figures: Record<string, Summary>): CaseJson {
  const base = figures[baseline]?.median;
  if (base === undefined) throw new Error(`case ${name}: no baseline ${baseline}`);
  const contenders: Record<string, ContenderJson> = {};
  for (const [who, s] of Object.entries(figures)) contenders[who] = { median: s.median, min: s.min, max: s.max, runs: s.runs, ratio: s.median / base };
  return { case: name, unit, better, baseline, contenders };
}

/** Merges this run's workloads into bench/results.json (workloads not run keep their earlier figures). */
export function writeResultsJson(file: URL, runs: number, workloads: Record<string, WorkloadJson>): void {
  const earlier = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<ResultsJson>).workloads ?? {} : {};
  const out: ResultsJson = { machine: machine(), date: new Date().toISOString(), node: process.version, runs, workloads: { ...earlier, ...workloads } };
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
}

const open = (name: string) => `<!-- bench:${name} -->`;
const close = (name: string) => `<!-- /bench:${name} -->`;

/**
 * Replaces the section of `name` in RESULTS.md (between its markers) with `markdown`, or appends it
 * before the `<!-- bench:end -->` marker (or at the end) when the file has none yet. Text outside the
 * markers (the hand-written verdicts) is kept.
 */
export function writeSection(file: URL, name: string, markdown: string): void {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# fhirgate benchmark results\n\n<!-- bench:end -->\n';
  const block = `${open(name)}\n${markdown.trim()}\n${close(name)}`;
  const start = text.indexOf(open(name));
  const end = text.indexOf(close(name));
  let next: string;
  if (start !== -1 && end > start) next = text.slice(0, start) + block + text.slice(end + close(name).length);
  else {
    const at = text.indexOf('<!-- bench:end -->');
    next = at === -1 ? `${text.trimEnd()}\n\n${block}\n` : `${text.slice(0, at)}${block}\n\n${text.slice(at)}`;
  }
  writeFileSync(file, next);
}
