/**
 * The schema functions of the `/docs` page's script: `$ref` resolution, the expanded schema shown under
 * "Schema", and the example generated from a schema when the document gives none.
 * @module
 */

/**
 * Plain ES2017 function declarations, spliced into the page's script, where `doc` is the loaded
 * OpenAPI document. Generated examples go as deep as the schema does (a JSON document is a finite tree):
 * a schema's own `example` is used at any depth, and only a `$ref` cycle ends in `null`.
 */
export const SCHEMA_FUNCTIONS = `
  function resolve(schema) {
    var seen = 0;
    while (schema && schema.$ref && seen < 10) {
      var name = String(schema.$ref).replace('#/components/schemas/', '');
      schema = (doc.components && doc.components.schemas && doc.components.schemas[name]) || {};
      seen += 1;
    }
    return schema || {};
  }
  function expand(schema, depth) {
    schema = resolve(schema);
    if (depth > 6) return schema;
    var out = {};
    Object.keys(schema).forEach(function (k) {
      var v = schema[k];
      if (k === 'properties') {
        out.properties = {};
        Object.keys(v).forEach(function (p) { out.properties[p] = expand(v[p], depth + 1); });
      } else if (k === 'items' || k === 'additionalProperties') out[k] = typeof v === 'object' ? expand(v, depth + 1) : v;
      else if (k === 'oneOf' || k === 'anyOf' || k === 'allOf') out[k] = v.map(function (s) { return expand(s, depth + 1); });
      else out[k] = v;
    });
    return out;
  }
  var FORMATS = { 'date-time': '2026-01-01T12:00:00Z', date: '2026-01-01', uuid: 'd1577c69-dfbe-44ad-ba6d-3e05e953b2ea', uri: 'https://example.org/fhir' };
  function sample(schema, refs) {
    refs = refs || [];
    if (schema && schema.$ref) {
      if (refs.indexOf(schema.$ref) >= 0) return null;
      refs = refs.concat([schema.$ref]);
    }
    schema = resolve(schema);
    if (schema.example !== undefined) return schema.example;
    if (schema.examples && schema.examples.length) return schema.examples[0];
    if (schema.const !== undefined) return schema.const;
    if (schema.enum && schema.enum.length) return schema.enum[0];
    var alt = schema.oneOf || schema.anyOf;
    if (alt && alt.length) return sample(alt[0], refs);
    var type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    if (type === 'array') return [sample(schema.items || {}, refs)];
    if (type === 'object' || schema.properties) {
      var o = {};
      Object.keys(schema.properties || {}).forEach(function (p) { o[p] = sample(schema.properties[p], refs); });
      return o;
    }
    if (type === 'integer' || type === 'number') return 0;
    if (type === 'boolean') return true;
    if (type === 'string') return FORMATS[schema.format] || 'string';
    return null;
  }
`;
