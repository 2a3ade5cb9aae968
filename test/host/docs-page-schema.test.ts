import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SCHEMA_FUNCTIONS } from '../../src/host/docs-page-schema-script.js';

type Sample = (schema: unknown) => unknown;

/** The page's `sample` over `doc`, run here as the browser runs it (plain functions over a `doc` variable). */
function pageSample(doc: unknown): Sample {
  return new Function('doc', `${SCHEMA_FUNCTIONS}\nreturn sample;`)(doc) as Sample;
}

/** A schema nesting `levels` objects, each under the property `next`, with `leaf` at the bottom. */
function nested(levels: number, leaf: Record<string, unknown>): Record<string, unknown> {
  let schema = leaf;
  for (let i = 0; i < levels; i += 1) schema = { type: 'object', properties: { next: schema } };
  return schema;
}

function bottom(value: unknown, levels: number): unknown {
  let v = value;
  for (let i = 0; i < levels; i += 1) v = (v as { next: unknown }).next;
  return v;
}

test('/docs examples: a value 10 levels down is generated, and a schema\'s own example shows 40 levels down', () => {
  const sample = pageSample({});
  assert.equal(bottom(sample(nested(10, { type: 'string', format: 'date' })), 10), '2026-01-01');
  assert.equal(bottom(sample(nested(40, { type: 'integer', example: 42 })), 40), 42);
  assert.deepEqual(bottom(sample(nested(8, { type: 'array', items: { type: 'string', example: 'deep' } })), 8), ['deep']);
});

test('/docs examples: a $ref cycle ends in null instead of recursing', () => {
  const doc = { components: { schemas: { Node: { type: 'object', properties: { name: { type: 'string', example: 'n' }, child: { $ref: '#/components/schemas/Node' } } } } } };
  assert.deepEqual(pageSample(doc)({ $ref: '#/components/schemas/Node' }), { name: 'n', child: null });
});
