/**
 * A strict reader of the Prometheus text format 0.0.4 for the tests, standing in for `promtool check
 * metrics` (not installed here): every line well formed, `# HELP` and `# TYPE` before a family's samples,
 * sample names that belong to their family, no series twice, counters named `_total` (and only
 * counters), histogram buckets cumulative with `+Inf` equal to `_count`. Throws on the first problem.
 */

/** One series: its full sample name (with `_bucket`, `_sum`, …), labels and value. */
export interface Series {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A family: its type and its series. */
export interface ParsedFamily {
  readonly type: string;
  readonly help: string;
  readonly series: Series[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (-?[0-9.]+(?:e[+-]?[0-9]+)?|\\+Inf|-Inf|NaN)$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)"(,|$)/y;

function labelsOf(text: string | undefined, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  if (text === undefined || text === '') return labels;
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const m = LABEL.exec(text);
    if (m === null) throw new Error(`bad labels in: ${line}`);
    if (m[1]! in labels) throw new Error(`label ${m[1]} twice in: ${line}`);
    labels[m[1]!] = m[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
  }
  return labels;
}

const value = (text: string): number => (text === '+Inf' ? Infinity : text === '-Inf' ? -Infinity : Number(text));

function checkHistogram(name: string, family: ParsedFamily): void {
  const groups = new Map<string, Series[]>();
  for (const s of family.series) {
    const { le: _le, ...rest } = s.labels;
    const key = JSON.stringify(rest);
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  for (const [key, series] of groups) {
    const buckets = series.filter((s) => s.name === `${name}_bucket`);
    const count = series.find((s) => s.name === `${name}_count`);
    if (count === undefined || series.find((s) => s.name === `${name}_sum`) === undefined) throw new Error(`${name}${key}: no _sum or _count`);
    let previous = -Infinity;
    for (const b of [...buckets].sort((x, y) => value(x.labels['le']!) - value(y.labels['le']!))) {
      if (b.value < previous) throw new Error(`${name}${key}: buckets are not cumulative`);
      previous = b.value;
    }
    if (buckets.find((b) => b.labels['le'] === '+Inf')?.value !== count.value) throw new Error(`${name}${key}: +Inf bucket differs from _count`);
  }
}

/**
 * Parses and checks `text`; returns the families by name.
 *
 * @example
 * ```ts
 * const families = parseExposition(await (await fetch(`${base}/metrics`)).text());
 * families.get('fhirgate_http_requests_total')?.series;
 * ```
 */
export function parseExposition(text: string): Map<string, ParsedFamily> {
  const families = new Map<string, ParsedFamily>();
  const seen = new Set<string>();
  let current: { name: string; help?: string; family?: ParsedFamily } | undefined;
  if (!text.endsWith('\n')) throw new Error('the text does not end with a newline');
  for (const line of text.slice(0, -1).split('\n')) {
    const comment = new RegExp(`^# (HELP|TYPE) (${NAME}) (.*)$`).exec(line);
    if (comment !== null) {
      const [, kind, name, rest] = comment as unknown as [string, string, string, string];
      if (kind === 'HELP') {
        if (families.has(name)) throw new Error(`family ${name} twice`);
        current = { name, help: rest };
        continue;
      }
      if (current?.name !== name || current.help === undefined) throw new Error(`# TYPE ${name} without its # HELP first`);
      if (!['counter', 'gauge', 'histogram'].includes(rest)) throw new Error(`${name}: unknown type ${rest}`);
      if ((rest === 'counter') !== name.endsWith('_total')) throw new Error(`${name}: counters, and only counters, end in _total`);
      current.family = { type: rest, help: current.help, series: [] };
      families.set(name, current.family);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (m === null) throw new Error(`not a sample line: ${line}`);
    const [, name, labelText, number] = m as unknown as [string, string, string | undefined, string];
    const family = current?.family;
    if (family === undefined || current === undefined) throw new Error(`sample before any # TYPE: ${line}`);
    const suffixes = family.type === 'histogram' ? ['_bucket', '_sum', '_count'] : [''];
    if (!suffixes.some((s) => name === `${current!.name}${s}`)) throw new Error(`${name} does not belong to family ${current.name}`);
    const labels = labelsOf(labelText, line);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(key)) throw new Error(`series twice: ${line}`);
    seen.add(key);
    family.series.push({ name, labels, value: value(number) });
  }
  for (const [name, family] of families) if (family.type === 'histogram') checkHistogram(name, family);
  return families;
}

/** The value of the one series of `name` whose labels include `labels` (summed when several match). */
export function seriesValue(families: Map<string, ParsedFamily>, family: string, labels: Record<string, string> = {}, name = family): number {
  return (families.get(family)?.series ?? [])
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((n, s) => n + s.value, 0);
}
