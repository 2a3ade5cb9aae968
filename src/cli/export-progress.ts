/**
 * What `fhirgate export` shows while it runs: one progress line (files, resources, bytes, elapsed and
 * the server's own progress), redrawn on a terminal only; and the summary it prints at the end.
 * @module
 */
import { performance } from 'node:perf_hooks';
import { printable } from '../lib/printable.js';
import type { CliIO } from './command.js';
import type { NDJSONFileCount } from './ndjson-files.js';

/** Redraws at most this often: a fast download must not spend its time on the terminal. */
const REDRAW_MS = 100;

/**
 * The progress line on stderr when it is a terminal (`isTTY`); silent otherwise, so that logs and pipes
 * get only the summary.
 */
export class ExportProgress {
  readonly #stream: CliIO['stderr'];
  readonly #started = performance.now();
  #server = 'starting the export';
  #counts: readonly NDJSONFileCount[] = [];
  #drawn = -Infinity;
  #shown = false;

  constructor(stream: CliIO['stderr']) {
    this.#stream = stream;
  }

  /** Seconds since the export started. */
  get elapsed(): number {
    return (performance.now() - this.#started) / 1000;
  }

  /** What the server says (`X-Progress`, or a step of the export): shown at once, without control characters. */
  server(text: string): void {
    this.#server = printable(text);
    this.#draw(true);
  }

  /** The files so far: shown when the last redraw is old enough. */
  counts(counts: readonly NDJSONFileCount[]): void {
    this.#counts = counts;
    this.#draw(false);
  }

  /** Draws the last state and ends the line (so that what follows starts on a fresh one). */
  end(): void {
    if (this.#stream.isTTY !== true) return;
    this.#draw(true);
    if (this.#shown) this.#stream.write('\n');
    this.#shown = false;
  }

  #draw(force: boolean): void {
    if (this.#stream.isTTY !== true) return;
    const now = performance.now();
    if (!force && now - this.#drawn < REDRAW_MS) return;
    this.#drawn = now;
    this.#shown = true;
    const { files, lines, bytes } = totals(this.#counts);
    // \r and "erase to the end of the line": the line is redrawn in place.
    this.#stream.write(`\r\x1b[K${files} file(s), ${lines} resource(s), ${formatBytes(bytes)}, ${this.elapsed.toFixed(1)} s; ${this.#server}`);
  }
}

/** The sums over the files. */
function totals(counts: readonly NDJSONFileCount[]): { files: number; lines: number; bytes: number } {
  return counts.reduce((sum, c) => ({ files: sum.files + 1, lines: sum.lines + c.lines, bytes: sum.bytes + c.bytes }), { files: 0, lines: 0, bytes: 0 });
}

/** The summary of a finished export: one row per file, then the totals. */
export function exportSummary(counts: readonly NDJSONFileCount[], dir: string, seconds: number): string {
  const width = Math.max(0, ...counts.map((c) => c.name.length));
  const rows = counts.map((c) => `${c.name.padEnd(width)}  ${c.lines} lines  ${formatBytes(c.bytes)}\n`);
  const { files, lines, bytes } = totals(counts);
  return `${rows.join('')}exported ${lines} resource(s) in ${files} file(s), ${formatBytes(bytes)}, to ${dir} in ${seconds.toFixed(1)} s\n`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
