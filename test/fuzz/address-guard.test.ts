/** Fuzz: `isNonPublicAddress` catches every textual form of the addresses in the refused IPv4 ranges. */
import assert from 'node:assert/strict';
import { isNonPublicAddress } from '../../src/cds/address-guard.js';
import { fuzz } from './lib/fuzz.js';
import type { Random } from './lib/random.js';

const REFUSED: readonly [number[], number][] = [[[10], 8], [[127], 8], [[172, 16], 12], [[192, 168], 16], [[100, 64], 10], [[169, 254], 16], [[0], 8]];
const PUBLIC_FIRST = [1, 8, 9, 23, 45, 93, 151, 185, 203];

function ipv4In(rng: Random, prefix: number[], bits: number): number[] {
  const octets = [...prefix, ...Array.from({ length: 4 - prefix.length }, () => rng.int(256))];
  // Keep the network bits of the last given octet inside the range (172.16/12, 100.64/10).
  const last = prefix.length - 1;
  const free = prefix.length * 8 - bits;
  if (free > 0) octets[last] = prefix[last]! + rng.int(1 << free);
  return octets;
}

function textual(rng: Random, octets: number[]): string {
  const dotted = octets.join('.');
  const hex = `${((octets[0]! << 8) | octets[1]!).toString(16)}:${((octets[2]! << 8) | octets[3]!).toString(16)}`;
  const form = rng.pick([dotted, `::ffff:${dotted}`, `::ffff:${hex}`, `::FFFF:${dotted}`, `0:0:0:0:0:ffff:${hex}`]);
  return form.includes(':') && rng.chance(0.5) ? `[${form}]` : form;
}

fuzz('fuzz: isNonPublicAddress refuses every textual form of the refused IPv4 ranges and passes public ones', { seed: 0xadd2, iterations: 3000 }, {
  generate(rng) {
    if (rng.chance(0.7)) {
      const [prefix, bits] = rng.pick(REFUSED);
      return { address: textual(rng, ipv4In(rng, prefix, bits)), refused: true };
    }
    return { address: textual(rng, [rng.pick(PUBLIC_FIRST), rng.int(256), rng.int(256), rng.int(256)]), refused: false };
  },
  check({ address, refused }) {
    assert.equal(isNonPublicAddress(address), refused, address);
  },
});
