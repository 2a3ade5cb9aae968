/**
 * The JSON Schemas (with examples) of CDS Hooks answers in `/openapi.json`: discovery and cards, as
 * CDS Hooks 2.0 defines them.
 * @module
 */
import type { CDSDiscoveryEntry } from './registry-entry.js';

type Schema = Record<string, unknown>;

/** A CDS Hooks 2.0 card. */
export const CARD_SCHEMA: Schema = Object.freeze({
  type: 'object',
  required: ['summary', 'indicator', 'source'],
  properties: {
    uuid: { type: 'string', format: 'uuid' },
    summary: { type: 'string', maxLength: 140, example: 'Patient is over 65' },
    detail: { type: 'string', description: 'markdown', example: 'Consider a falls-risk assessment.' },
    indicator: { enum: ['info', 'warning', 'critical'] },
    source: { type: 'object', required: ['label'], properties: { label: { type: 'string', example: 'Age check' }, url: { type: 'string', format: 'uri' } } },
    suggestions: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' }, uuid: { type: 'string' }, actions: { type: 'array', items: { type: 'object' } } } } },
    selectionBehavior: { enum: ['at-most-one', 'any'] },
    links: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' }, url: { type: 'string', format: 'uri' }, type: { enum: ['absolute', 'smart'] } } } },
  },
});

/** A service call's answer: `{ cards, systemActions? }`. */
export const CARDS_SCHEMA: Schema = Object.freeze({
  type: 'object',
  required: ['cards'],
  properties: { cards: { type: 'array', items: CARD_SCHEMA }, systemActions: { type: 'array', items: { type: 'object' } } },
});

/** The discovery document's schema, with the registered services as its example. */
export function discoverySchema(services: readonly CDSDiscoveryEntry[]): Schema {
  return {
    type: 'object',
    required: ['services'],
    properties: {
      services: {
        type: 'array',
        items: {
          type: 'object',
          required: ['hook', 'description', 'id'],
          properties: { hook: { type: 'string' }, title: { type: 'string' }, description: { type: 'string' }, id: { type: 'string' }, prefetch: { type: 'object' }, usageRequirements: { type: 'string' } },
        },
      },
    },
    example: { services: services.map((s) => ({ ...s })) },
  };
}
