/**
 * Writing the Prometheus text exposition format (version 0.0.4): `# HELP`, `# TYPE`, and one line per
 * sample with escaped label values.
 * @module
 */

/** Label names and values of one sample. */
export type Labels = Readonly<Record<string, string>>;

/** One sample: its labels (and a name suffix such as `_bucket`) and its value. */
export interface Sample {
  readonly suffix?: string;
  readonly labels: Labels;
  readonly value: number;
}

const escapeLabel = (value: string): string => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const escapeHelp = (value: string): string => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/**
 * One metric family: its name, type, help text and samples. What `app.metricFamilies()` returns and
 * `fhirgate/cluster` sends between processes (plain data, JSON-safe).
 */
export interface MetricFamily {
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly help: string;
  readonly samples: readonly Sample[];
}

/** The exposition text of `families`, in order. */
export function renderFamilies(families: readonly MetricFamily[]): string {
  return families.map((f) => family(f.name, f.type, f.help, f.samples)).join('');
}

/** One metric family as text: its HELP and TYPE lines and its samples, each line ending in `\n`. */
export function family(name: string, type: 'counter' | 'gauge' | 'histogram', help: string, samples: readonly Sample[]): string {
  let text = `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${type}\n`;
  for (const { suffix = '', labels, value } of samples) {
    const pairs = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
    text += `${name}${suffix}${pairs.length > 0 ? `{${pairs.join(',')}}` : ''} ${formatValue(value)}\n`;
  }
  return text;
}

/** Upper bounds of the latency histogram, in seconds. */
export const LATENCY_BUCKETS: readonly number[] = Object.freeze([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);

/**
 * Upper bounds of the upstream latency histograms, in seconds: OpenTelemetry's defaults for
 * `http.client.request.duration`.
 */
export const CLIENT_BUCKETS: readonly number[] = Object.freeze([0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]);

/**
 * A histogram's counts for one label set: cumulative `_bucket` samples (with `le`), `_sum` and `_count`.
 * `buckets` are its upper bounds, ascending (default {@link LATENCY_BUCKETS}).
 */
export class HistogramCounts {
  readonly #buckets: readonly number[];
  readonly #counts: number[];
  #sum = 0;
  #count = 0;

  constructor(buckets: readonly number[] = LATENCY_BUCKETS) {
    this.#buckets = buckets;
    this.#counts = new Array<number>(buckets.length).fill(0);
  }

  observe(seconds: number): void {
    const buckets = this.#buckets;
    for (let i = 0; i < buckets.length; i++) {
      if (seconds <= buckets[i]!) {
        this.#counts[i]! += 1;
        break;
      }
    }
    this.#sum += seconds;
    this.#count += 1;
  }

  samples(labels: Labels): Sample[] {
    let cumulative = 0;
    const buckets = this.#buckets.map((le, i): Sample => {
      cumulative += this.#counts[i]!;
      return { suffix: '_bucket', labels: { ...labels, le: String(le) }, value: cumulative };
    });
    return [
      ...buckets,
      { suffix: '_bucket', labels: { ...labels, le: '+Inf' }, value: this.#count },
      { suffix: '_sum', labels, value: this.#sum },
      { suffix: '_count', labels, value: this.#count },
    ];
  }
}
