/**
 * `NO_PROXY` rules as curl reads them: which upstreams are reached directly, not through the proxy.
 * @module
 */

/** One rule: a host or domain (`host`), with a port or for any port (`port` 0); `*` is every upstream. */
interface Rule {
  readonly host: string;
  readonly port: number;
}

/** Parsed rules; empty: every upstream goes through the proxy. */
export type NoProxyRules = readonly Rule[];

/**
 * Parses a `NO_PROXY` list: entries separated by commas or white space, each `*`, a host name or IP
 * address (`[::1]` or `::1` for IPv6), a domain (`example.org` and `.example.org` both match
 * `example.org` and every name under it), optionally with `:port` (that port only). Case-insensitive.
 * An entry that is none of these (a URL, a path) is a `TypeError` naming `name`: a typo would
 * otherwise send traffic meant to stay inside through the proxy.
 */
export function parseNoProxy(list: string, name: string): NoProxyRules {
  const rules: Rule[] = [];
  for (const entry of list.split(/[\s,]+/)) {
    if (entry === '') continue;
    if (entry === '*') {
      rules.push({ host: '*', port: 0 });
      continue;
    }
    const [host, port] = hostAndPort(entry);
    if (host === undefined || port > 65_535) throw new TypeError(`${name}: ${JSON.stringify(entry)} is not a host, domain, host:port or *`);
    rules.push({ host: host.toLowerCase().replace(/^\*?\.+/, '').replace(/\.$/, ''), port });
  }
  return rules;
}

/** `[v6]:port`, a bare IPv6 address (no port: its colons are its own), or `host:port`; port 0 for none. */
function hostAndPort(entry: string): [string | undefined, number] {
  const match = entry.startsWith('[') ? /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/i.exec(entry) : entry.indexOf(':') !== entry.lastIndexOf(':') ? /^([0-9a-f:.]+)()$/i.exec(entry) : /^([^\s:/[\]@?#]+)(?::(\d{1,5}))?$/.exec(entry);
  return match === null ? [undefined, 0] : [match[1], match[2] === undefined || match[2] === '' ? 0 : Number(match[2])];
}

/**
 * True when `hostname` (as a URL gives it: lower case, IPv6 in brackets) on `port` is to be reached
 * directly: a rule for every upstream, for this host or a domain above it, with no port or this one.
 */
export function bypassesProxy(rules: NoProxyRules, hostname: string, port: number): boolean {
  const host = (hostname.startsWith('[') ? hostname.slice(1, -1) : hostname).replace(/\.$/, '');
  for (const rule of rules) {
    if (rule.port !== 0 && rule.port !== port) continue;
    if (rule.host === '*' || rule.host === host || host.endsWith(`.${rule.host}`)) return true;
  }
  return false;
}
