/**
 * Fuzz: the CDA reader on mutated versions of the fixture documents (text edits, attribute values
 * replaced, elements dropped, DOCTYPE inserted). `readCDA` and `enrichCDA` return or throw `ERR_CDA`
 * only; what `readCDA` returns always converts with `cdaToFHIR`; what `enrichCDA` returns reads back.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cdaToFHIR, enrichCDA, readCDA } from '../../src/soap/index.js';
import type { CDAEnrichment } from '../../src/soap/index.js';
import { fuzz, settle } from './lib/fuzz.js';
import type { Random } from './lib/random.js';
import { join } from 'node:path';
import { ROOT } from '../support/code-tree.js';

const fixture = (name: string): string => readFileSync(join(ROOT, 'test/fixtures/cda', name), 'utf8');
const FIXTURES = [fixture('epic_cda.xml'), fixture('test_cda.xml'), fixture('epic_cda.xml'), fixture('test_cda.xml'), fixture('uclh_cda.xml')];
const ATTRIBUTE_VALUES = [
  '', 'NI', 'UNK', '2020', '202013', '20200230', '2020010112', '20200101120000+0500', '20200101120000.1234-0800', '99999999999999999999', 'abc',
  '2.16.840.1.113883.6.96', '2.16.840.1.113883.6.1', 'urn:oid:1.2', '#ref1', '#missing', 'CD', 'CE', 'IVL_TS', 'PQ', 'true', '-1', '1e309',
  '&amp;', '&lt;', '&#0;', '"', '<', 'x\u0000y', '\u202e',
];
const ENRICHMENT: CDAEnrichment = {
  problems: [{ code: { code: '38341003', codeSystem: '2.16.840.1.113883.6.96', display: 'Hypertension' }, status: 'active', onset: '20200101' }],
  allergies: [{ allergen: { display: 'Dust' } }],
};

/** Replaces the value of one attribute, chosen at random. */
function changeAttribute(rng: Random, text: string): string {
  const spots = [...text.matchAll(/ [\w:]+="([^"]*)"/g)];
  if (spots.length === 0) return text;
  const spot = rng.pick(spots);
  const start = (spot.index as number) + spot[0].indexOf('"') + 1;
  const value = rng.chance(0.8) ? rng.pick(ATTRIBUTE_VALUES) : rng.string(rng.size(20)).replace(/[<&"]/g, '');
  return text.slice(0, start) + value + text.slice(start + (spot[1] as string).length);
}

/** Drops one self-closing element, so the document stays well-formed but loses a piece. */
function dropElement(rng: Random, text: string): string {
  const spots = [...text.matchAll(/<[\w:]+\b[^<>]*\/>/g)];
  if (spots.length === 0) return text;
  const spot = rng.pick(spots);
  return text.slice(0, spot.index) + text.slice((spot.index as number) + spot[0].length);
}

function generate(rng: Random): string {
  let text = rng.pick(FIXTURES);
  for (let edits = 1 + rng.int(4); edits > 0; edits--) {
    switch (rng.int(6)) {
      case 0: text = rng.mutate(text, 1); break;
      case 1: text = text.replace(/^(<\?xml[^>]*\?>)?/, `$1${rng.pick(['<!DOCTYPE ClinicalDocument [<!ENTITY x "y">]>', '<!DOCTYPE x SYSTEM "http://evil.example/x.dtd">'])}`); break;
      case 2: text = dropElement(rng, text); break;
      default: text = changeAttribute(rng, text); break;
    }
  }
  return text;
}

fuzz('readCDA and enrichCDA read mutated documents or throw ERR_CDA; what they return is usable', { seed: 0xcda, iterations: 400 }, {
  generate,
  async check(text) {
    const read = await settle(['ERR_CDA'], () => readCDA(text));
    if (read.ok) {
      const resources = await settle([], () => cdaToFHIR(read.value));
      assert.ok(resources.ok);
    }
    const enriched = await settle(['ERR_CDA'], () => enrichCDA(text, ENRICHMENT));
    if (enriched.ok) {
      const again = await settle([], () => readCDA(enriched.value));
      assert.ok(again.ok && again.value.problems.some((p) => p.code?.code === '38341003'), 'an enriched document reads back with the added problem');
    }
  },
});
