/**
 * FHIR date search (search.html#date): every date, partial date or dateTime is the range of instants
 * it covers, and the prefixes compare ranges. A time without a zone is read as UTC.
 * @module
 */

/** The half-open range `[start, end)` of instants, in epoch milliseconds, that a FHIR date covers. */
export interface DateRange {
  readonly start: number;
  readonly end: number;
}

/** The comparison prefixes of FHIR date search. */
export const DATE_PREFIXES = ['eq', 'ne', 'gt', 'lt', 'ge', 'le', 'sa', 'eb', 'ap'] as const;

/** One comparison prefix. */
export type DatePrefix = (typeof DATE_PREFIXES)[number];

const DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/;

/** The range a FHIR date, partial date or dateTime covers, or undefined when the text is not one. */
export function dateRange(text: string): DateRange | undefined {
  const m = DATE.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const year = Number(y);
  const month = mo === undefined ? 0 : Number(mo) - 1;
  const day = d === undefined ? 1 : Number(d);
  if (month < 0 || month > 11 || day < 1 || day > new Date(Date.UTC(year, month + 1, 0)).getUTCDate()) return undefined;
  if (Number(h ?? 0) > 23 || Number(mi ?? 0) > 59 || Number(s ?? 0) > 59) return undefined;
  const offset = zone === undefined || zone === 'Z' ? 0
    : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4)));
  const ms = frac === undefined ? 0 : Math.floor(Number(frac) * 1000);
  const start = Date.UTC(year, month, day, Number(h ?? 0), Number(mi ?? 0) - offset, Number(s ?? 0), ms);
  const end = mo === undefined ? Date.UTC(year + 1, 0, 1)
    : d === undefined ? Date.UTC(year, month + 1, 1)
      : h === undefined ? Date.UTC(year, month, day + 1)
        : start + (s === undefined ? 60_000 : frac === undefined ? 1000 : 1);
  return { start, end };
}

/** True when the target range matches the search range under the prefix (FHIR R4 search.html#prefix). */
export function matchesDate(prefix: DatePrefix, search: DateRange, target: DateRange): boolean {
  const contains = target.start >= search.start && target.end <= search.end;
  switch (prefix) {
    case 'eq': return contains;
    case 'ne': return !contains;
    case 'gt': return target.end > search.end;
    case 'lt': return target.start < search.start;
    case 'ge': return target.end > search.end || contains;
    case 'le': return target.start < search.start || contains;
    case 'sa': return target.start >= search.end;
    case 'eb': return target.end <= search.start;
    case 'ap': return target.start < search.end && target.end > search.start;
  }
}
