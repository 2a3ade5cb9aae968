/**
 * The address rules of CDS prefetch: with no `fhirServers` allowlist, a caller-named `fhirServer` must not
 * lead this server to its own loopback, a private network or any other address that is not public. The
 * check is made on the address a name RESOLVES to, inside the connection's own `lookup`, so the address
 * checked is the address connected to (DNS cannot change between check and use).
 * @module
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { BlockList, isIP } from 'node:net';

/** Not public: `[address, prefix length]`. IPv4-mapped IPv6 forms (`::ffff:127.0.0.1`) match the IPv4 rows. */
const NOT_PUBLIC: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata endpoints)
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64 (embeds an IPv4 address)
  ['2002::', 16], // 6to4 (embeds an IPv4 address)
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
];

const BLOCKED = new BlockList();
for (const [network, prefix] of NOT_PUBLIC) BLOCKED.addSubnet(network, prefix, network.includes(':') ? 'ipv6' : 'ipv4');

/**
 * True when `address` (an IP literal, IPv6 with or without brackets) is loopback, private, CGNAT,
 * link-local, unique-local, unspecified, multicast or reserved, IPv4-mapped forms included. A string that
 * is not an IP address gives false.
 */
export function isNonPublicAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare);
  return family !== 0 && BLOCKED.check(bare, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * The error a refused address fails the connection with. Internal: the prefetch tells it apart for its
 * log line and answers the caller its one `ERR_CDS_PREFETCH` message.
 */
export class NonPublicAddressError extends Error {
  constructor(readonly hostname: string) {
    super(`${hostname} resolves to an address that is not public`);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for sockets that resolves as usual and fails with {@link NonPublicAddressError} when any
 * address the name resolves to is not public (one bad record is enough: the connection could pick it).
 */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err !== null) return callback(err, []);
    if (addresses.length === 0 || addresses.some((a) => isNonPublicAddress(a.address))) return callback(new NonPublicAddressError(hostname), []);
    if (options.all === true) return callback(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
}

/**
 * A one-use agent for `url` whose sockets only connect to public addresses (see {@link publicOnlyLookup});
 * an IP literal host is checked before any socket is made (Node skips `lookup` for literals), and
 * `undefined` is returned for a non-public one.
 */
export function publicOnlyAgent(url: URL): HttpAgent | undefined {
  if (isNonPublicAddress(url.hostname)) return undefined;
  return url.protocol === 'https:' ? new HttpsAgent({ lookup: publicOnlyLookup }) : new HttpAgent({ lookup: publicOnlyLookup });
}
