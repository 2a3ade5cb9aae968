/**
 * The inline script of `GET /docs` (allowed by its SHA-256 hash in the page's CSP). It reads
 * `openapi.json` next to the page and renders, per operation: a form pre-filled from the examples, "Send"
 * (same-origin `fetch`), "Copy as curl" for the request the form describes, and every response with its
 * schema and an example (the document's, else one generated from the schema, as Swagger UI does), and
 * its declared headers. Each operation has a deep link (`#<operationId>`); required parameters are
 * checked before anything is sent.
 * @module
 */
import { SCHEMA_FUNCTIONS } from './docs-page-schema-script.js';

/** The `/docs` page's JavaScript (plain ES2017, no dependency). */
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
${SCHEMA_FUNCTIONS}
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
  function show(out, ok, status, body, headers) {
    out.replaceChildren();
    out.append(el('div', 'status ' + (ok ? 'ok' : 'bad'), status));
    if (headers && headers.length) {
      var list = el('dl', 'headers');
      headers.forEach(function (h) { list.append(el('dt', '', h[0]), el('dd', '', h[1])); });
      out.append(el('div', 'label', 'Response headers'), list);
    }
    if (body !== undefined) out.append(el('pre', 'body', body));
  }
  function missing(params, form) {
    var names = [];
    params.forEach(function (p) {
      var input = form.elements[p.in + ':' + p.name];
      var empty = p.required && input.value.trim() === '';
      input.classList.toggle('missing', empty);
      input.setAttribute('aria-invalid', empty ? 'true' : 'false');
      if (empty) names.push(p.name);
    });
    var area = form.elements['body'];
    if (area && area.required && area.value.trim() === '') names.push('body');
    return names;
  }
  function send(request, out, button) {
    button.disabled = true;
    var started = performance.now();
    fetch(request.url, request.init).then(function (r) {
      return r.text().then(function (text) {
        var ms = Math.round(performance.now() - started);
        var headers = [];
        r.headers.forEach(function (value, name) { headers.push([name, value]); });
        show(out, r.ok, r.status + ' ' + r.statusText + ' · ' + ms + ' ms · ' + request.init.method + ' ' + request.url.pathname + request.url.search, pretty(text), headers);
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
        var example = given ? media.example : media.schema ? sample(media.schema) : undefined;
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
      var declared = Object.keys(r.headers || {});
      if (declared.length) {
        var list = el('dl', 'headers');
        declared.forEach(function (h) { list.append(el('dt', '', h), el('dd', '', (r.headers[h] && r.headers[h].description) || '')); });
        row.append(el('div', 'label', 'Headers'), list);
      }
      box.append(row);
    });
    return box;
  }
  function operation(path, method, op) {
    var d = el('details', 'op');
    d.dataset.method = method.toUpperCase();
    d.dataset.path = path;
    if (op.operationId) d.id = op.operationId;
    var s = el('summary');
    s.append(el('span', 'method m-' + method, method), el('span', 'path', path), el('span', 'sum', op.summary || ''));
    if (op.operationId) {
      var link = el('a', 'link', '#');
      link.href = '#' + encodeURIComponent(op.operationId);
      link.title = 'Link to this operation';
      s.append(link);
    }
    d.append(s);
    d.addEventListener('toggle', function () {
      if (d.open && d.id && location.hash !== '#' + encodeURIComponent(d.id)) history.replaceState(null, '', '#' + encodeURIComponent(d.id));
    });
    var form = el('form');
    form.noValidate = true;
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
      i.required = !!p.required;
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
      area.required = !!op.requestBody.required;
      var media = op.requestBody.content && op.requestBody.content[type];
      if (media && media.example !== undefined) area.value = asText(media.example);
      else if (media && media.schema) area.value = asText(sample(media.schema));
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
    function ready() {
      var names = missing(params, form);
      if (names.length) show(out, false, 'Required: ' + names.join(', '));
      return names.length === 0;
    }
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      if (ready()) send(build(path, method, params, form), out, button);
    });
    copy.addEventListener('click', function () {
      if (!ready()) return;
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
    openLinked();
  }
  function openLinked() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target || !target.classList.contains('op')) return;
    target.open = true;
    target.scrollIntoView();
  }
  window.addEventListener('hashchange', openLinked);
  fetch(new URL('openapi.json', base), { headers: { Accept: 'application/json' } })
    .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); })
    .then(render)
    .catch(function (e) { ops.replaceChildren(el('p', 'note', 'Could not load openapi.json: ' + e.message)); });
})();
`;
