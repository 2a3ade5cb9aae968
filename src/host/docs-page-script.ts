/**
 * The inline script of `GET /docs` (allowed by its SHA-256 hash in the page's CSP). It reads
 * `openapi.json` next to the page and renders, per operation: a form pre-filled from the examples, "Send"
 * (same-origin `fetch`), "Copy as curl" for the request the form describes, and every response with its
 * schema and an example (the document's, else one generated from the schema, as Swagger UI does).
 * @module
 */

/**
 * The `/docs` page's JavaScript (plain ES2017, no dependency).
 *
 * @example
 * ```ts
 * const html = `<script>${DOCS_SCRIPT}</script>`;
 * ```
 */
export const DOCS_SCRIPT = `
(function () {
  'use strict';
  var base = new URL('.', location.href);
  var keyInput = document.getElementById('api-key');
  var ops = document.getElementById('ops');
  var doc = null;
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function pretty(text) {
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
  }
  function asText(value) {
    return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  }
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
  function sample(schema, depth) {
    schema = resolve(schema);
    if (depth > 6) return null;
    if (schema.example !== undefined) return schema.example;
    if (schema.examples && schema.examples.length) return schema.examples[0];
    if (schema.const !== undefined) return schema.const;
    if (schema.enum && schema.enum.length) return schema.enum[0];
    var alt = schema.oneOf || schema.anyOf;
    if (alt && alt.length) return sample(alt[0], depth + 1);
    var type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    if (type === 'array') return [sample(schema.items || {}, depth + 1)];
    if (type === 'object' || schema.properties) {
      var o = {};
      Object.keys(schema.properties || {}).forEach(function (p) { o[p] = sample(schema.properties[p], depth + 1); });
      return o;
    }
    if (type === 'integer' || type === 'number') return 0;
    if (type === 'boolean') return true;
    if (type === 'string') return FORMATS[schema.format] || 'string';
    return null;
  }
  function paramExample(p) {
    var s = p.schema || {};
    var v = p.example !== undefined ? p.example : s.example !== undefined ? s.example : s.enum && s.enum.length ? s.enum[0] : s.default;
    if (v === undefined) return '';
    return Array.isArray(v) ? v.join(',') : String(v);
  }
  function build(path, method, params, form) {
    var query = new URLSearchParams();
    var headers = {};
    var target = path;
    params.forEach(function (p) {
      var value = form.elements[p.in + ':' + p.name].value;
      if (p.in === 'path') target = target.split('{' + p.name + '}').join(encodeURIComponent(value));
      else if (value === '') return;
      else if (p.in === 'header') headers[p.name] = value;
      else if (p.schema && p.schema.type === 'array') value.split(',').forEach(function (v) { query.append(p.name, v.trim()); });
      else query.append(p.name, value);
    });
    if (keyInput.value) headers['X-API-Key'] = keyInput.value;
    var init = { method: method.toUpperCase(), headers: headers };
    var bodyField = form.elements['body'];
    if (bodyField && bodyField.value.trim() !== '') {
      init.body = bodyField.value;
      headers['Content-Type'] = bodyField.dataset.type;
    }
    var url = new URL(target.replace(/^\\//, ''), base);
    url.search = query.toString();
    return { url: url, init: init };
  }
  function quote(word) {
    return "'" + String(word).split("'").join("'\\\\''") + "'";
  }
  function curl(request) {
    var words = ['curl', '-s'];
    var m = request.init.method;
    if (m !== (request.init.body === undefined ? 'GET' : 'POST')) words.push('-X', m);
    Object.keys(request.init.headers).forEach(function (h) { words.push('-H', quote(h + ': ' + request.init.headers[h])); });
    if (request.init.body !== undefined) words.push('--data-binary', quote(request.init.body));
    words.push(quote(request.url.href));
    return words.join(' ');
  }
  function show(out, ok, status, body) {
    out.replaceChildren();
    out.append(el('div', 'status ' + (ok ? 'ok' : 'bad'), status));
    if (body !== undefined) out.append(el('pre', 'body', body));
  }
  function send(request, out, button) {
    button.disabled = true;
    var started = performance.now();
    fetch(request.url, request.init).then(function (r) {
      return r.text().then(function (text) {
        var ms = Math.round(performance.now() - started);
        show(out, r.ok, r.status + ' ' + r.statusText + ' · ' + ms + ' ms · ' + request.init.method + ' ' + request.url.pathname + request.url.search, pretty(text));
      });
    }).catch(function (e) {
      show(out, false, 'request failed: ' + e.message);
    }).finally(function () { button.disabled = false; });
  }
  function responses(op) {
    var box = el('div', 'responses');
    box.append(el('h3', '', 'Responses'));
    Object.keys(op.responses || {}).forEach(function (code) {
      var r = op.responses[code];
      var row = el('div', 'resp');
      row.dataset.status = code;
      row.append(el('span', 'code', code), el('span', 'rdesc', r.description || ''));
      var content = r.content || {};
      var types = Object.keys(content);
      if (types.length === 0) row.append(el('div', 'label', 'no body'));
      types.forEach(function (type) {
        var media = content[type] || {};
        row.append(el('div', 'ctype', type));
        var given = media.example !== undefined;
        var example = given ? media.example : media.schema ? sample(media.schema, 0) : undefined;
        if (example !== undefined && example !== null) {
          row.append(el('div', 'label', given ? 'Example' : 'Example (generated from the schema)'));
          row.append(el('pre', 'example', asText(example)));
        }
        if (media.schema) {
          var d = el('details', 'schema');
          d.append(el('summary', '', 'Schema'), el('pre', '', JSON.stringify(expand(media.schema, 0), null, 2)));
          row.append(d);
        }
      });
      box.append(row);
    });
    return box;
  }
  function operation(path, method, op) {
    var d = el('details', 'op');
    d.dataset.method = method.toUpperCase();
    d.dataset.path = path;
    var s = el('summary');
    s.append(el('span', 'method m-' + method, method), el('span', 'path', path), el('span', 'sum', op.summary || ''));
    d.append(s);
    var form = el('form');
    if (op.description) form.append(el('p', 'desc', op.description));
    var params = op.parameters || [];
    params.forEach(function (p) {
      var row = el('label', 'param');
      var name = el('span', '', p.name);
      if (p.required) name.append(el('span', 'req', ' *'));
      name.append(el('small', '', p.in + (p.description ? ' · ' + p.description : '')));
      var isArray = p.schema && p.schema.type === 'array';
      var i = el('input');
      i.name = p.in + ':' + p.name;
      i.placeholder = isArray ? 'comma-separated values' : (p.schema && p.schema.type) || 'string';
      i.value = paramExample(p);
      row.append(name, i);
      form.append(row);
    });
    if (op.requestBody) {
      var types = Object.keys(op.requestBody.content || {});
      var type = types[0] || 'application/json';
      var row = el('label', 'param');
      var name = el('span', '', 'body');
      name.append(el('small', '', type));
      var area = el('textarea');
      area.name = 'body';
      area.dataset.type = type;
      var media = op.requestBody.content && op.requestBody.content[type];
      if (media && media.example !== undefined) area.value = asText(media.example);
      else if (media && media.schema) area.value = asText(sample(media.schema, 0));
      row.append(name, area);
      form.append(row);
    }
    var button = el('button', 'send', 'Send');
    button.type = 'submit';
    var copy = el('button', 'alt copy-curl', 'Copy as curl');
    copy.type = 'button';
    var curlBox = el('pre', 'curl');
    curlBox.hidden = true;
    var out = el('div', 'out');
    form.append(button, copy, curlBox, out);
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      send(build(path, method, params, form), out, button);
    });
    copy.addEventListener('click', function () {
      var text = curl(build(path, method, params, form));
      curlBox.textContent = text;
      curlBox.hidden = false;
      if (navigator.clipboard) navigator.clipboard.writeText(text).then(function () { copy.textContent = 'Copied'; }, function () { copy.textContent = 'Copy as curl (select the text below)'; });
    });
    d.append(form, responses(op));
    return d;
  }
  function render(loaded) {
    doc = loaded;
    document.title = doc.info.title + ' · API docs';
    document.getElementById('title').textContent = doc.info.title + ' · API version ' + doc.info.version;
    var servedBy = doc.info['x-fhirgate-version'] ? 'Served by fhirgate ' + doc.info['x-fhirgate-version'] + '.' : '';
    document.getElementById('desc').textContent = [doc.info.description || '', servedBy].filter(Boolean).join(' ');
    var groups = new Map();
    Object.keys(doc.paths).forEach(function (path) {
      Object.keys(doc.paths[path]).forEach(function (method) {
        var op = doc.paths[path][method];
        var tag = (op.tags && op.tags[0]) || 'default';
        if (!groups.has(tag)) groups.set(tag, []);
        groups.get(tag).push(operation(path, method, op));
      });
    });
    ops.replaceChildren();
    groups.forEach(function (items, tag) {
      ops.append(el('h2', '', tag));
      items.forEach(function (item) { ops.append(item); });
    });
  }
  fetch(new URL('openapi.json', base), { headers: { Accept: 'application/json' } })
    .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
    .then(render)
    .catch(function (e) { ops.replaceChildren(el('p', 'note', 'Could not load openapi.json: ' + e.message)); });
})();
`;
