/**
 * The `Retry-After` header (RFC 9110 §10.2.3): delta-seconds or an HTTP-date (§5.6.7: IMF-fixdate,
 * and the obsolete RFC 850 and asctime forms a recipient must accept).
 * @module
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC_850 = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/**
 * Milliseconds to wait according to a `Retry-After` value: `0` for an HTTP-date in the past,
 * `undefined` for anything that is neither form (the caller then uses its own backoff).
 */
export function parseRetryAfter(value: string | readonly string[] | undefined, nowMs: number): number | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = parseHTTPDate(text, nowMs);
  return at === undefined ? undefined : Math.max(0, at - nowMs);
}

/**
 * An HTTP-date in milliseconds since the epoch, or `undefined` when `text` is not one (or names a day
 * that does not exist). A two-digit RFC 850 year more than 50 years ahead of `nowMs` is read as the
 * most recent past year with those digits (RFC 9110 §5.6.7).
 */
export function parseHTTPDate(text: string, nowMs: number): number | undefined {
  let m = IMF_FIXDATE.exec(text);
  if (m !== null) return utc(Number(m[3]), m[2]!, Number(m[1]), m.slice(4));
  m = RFC_850.exec(text);
  if (m !== null) {
    const thisYear = new Date(nowMs).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(m[3]);
    if (year > thisYear + 50) year -= 100;
    return utc(year, m[2]!, Number(m[1]), m.slice(4));
  }
  m = ASCTIME.exec(text);
  if (m !== null) return utc(Number(m[6]), m[1]!, Number(m[2]!.trim()), m.slice(3, 6));
  return undefined;
}

function utc(year: number, month: string, day: number, time: string[]): number | undefined {
  const [hour, minute, second] = time.map(Number) as [number, number, number];
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const monthIndex = MONTHS.indexOf(month);
  const date = new Date(Date.UTC(year, monthIndex, day, hour, minute, Math.min(second, 59)));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== monthIndex || date.getUTCDate() !== day) return undefined;
  return date.getTime();
}
