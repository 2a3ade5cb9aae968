/**
 * `GET /docs`: one self-contained HTML page (inline CSS and JS, no external script, font or image) that
 * fetches `openapi.json` next to it, lists every operation with a form for its parameters, sends the
 * request from the page (same origin) and shows status and body. Its Content-Security-Policy allows
 * only its own inline script and style (by SHA-256 hash) and `connect-src 'self'`.
 * @module
 */
import { createHash } from 'node:crypto';

const STYLE = `
:root{--bg:#f6f7f9;--card:#fff;--ink:#1d2330;--mute:#5d6677;--line:#dde1e8;--get:#1f7a4d;--post:#1d5fb8;--put:#9a6400;--patch:#6b4bb8;--delete:#b42318}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--ink)}
header{background:#14213d;color:#fff;padding:20px 32px}header h1{margin:0;font-size:22px;font-weight:600}header p{margin:4px 0 0;color:#c9d1e3}
main{max-width:1080px;margin:0 auto;padding:24px 32px 64px}
.key{display:flex;gap:8px;align-items:center;margin:0 0 20px;padding:12px 16px;background:var(--card);border:1px solid var(--line);border-radius:8px}
.key label{font-weight:600}.key input{flex:1}
h2{font-size:17px;margin:28px 0 10px;color:var(--mute);letter-spacing:.01em}
details.op{background:var(--card);border:1px solid var(--line);border-radius:8px;margin:0 0 8px;overflow:hidden}
details.op>summary{cursor:pointer;display:flex;gap:12px;align-items:center;padding:10px 14px;list-style:none}
details.op>summary::-webkit-details-marker{display:none}details.op[open]>summary{border-bottom:1px solid var(--line)}
.method{min-width:64px;text-align:center;font:600 12px/1.9 ui-monospace,Menlo,Consolas,monospace;color:#fff;border-radius:4px;text-transform:uppercase}
.m-get{background:var(--get)}.m-post{background:var(--post)}.m-put{background:var(--put)}.m-patch{background:var(--patch)}.m-delete{background:var(--delete)}
.path{font:14px ui-monospace,Menlo,Consolas,monospace}.sum{color:var(--mute)}
form{padding:14px}.desc{margin:0 0 10px;color:var(--mute)}
.param{display:grid;grid-template-columns:200px 1fr;gap:8px;align-items:center;margin:0 0 8px}
.param small{display:block;color:var(--mute);font-weight:400}.req{color:var(--delete)}
input,textarea{font:13px ui-monospace,Menlo,Consolas,monospace;padding:6px 8px;border:1px solid var(--line);border-radius:6px;width:100%}
textarea{min-height:120px;resize:vertical}
button{font:600 14px system-ui,sans-serif;background:#14213d;color:#fff;border:0;border-radius:6px;padding:8px 18px;cursor:pointer}
button:disabled{opacity:.6;cursor:wait}
.out{margin:12px 0 0}.status{font:600 13px ui-monospace,Menlo,Consolas,monospace}.ok{color:var(--get)}.bad{color:var(--delete)}
pre{background:#0f1628;color:#e4e8f1;padding:12px;border-radius:6px;overflow:auto;max-height:420px;font-size:12.5px;margin:6px 0 0}
.note{color:var(--mute)}
`;

const SCRIPT = `
(function () {
  'use strict';
  var base = new URL('.', location.href);
  var keyInput = document.getElementById('api-key');
  var ops = document.getElementById('ops');
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function input(name, placeholder) {
    var i = el('input');
    i.name = name;
    i.placeholder = placeholder || '';
    return i;
  }
  function show(out, ok, status, body) {
    out.replaceChildren();
    out.append(el('div', 'status ' + (ok ? 'ok' : 'bad'), status));
    if (body !== undefined) out.append(el('pre', '', body));
  }
  function pretty(text) {
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
  }
  function send(path, method, params, form, out, button) {
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
    button.disabled = true;
    var started = performance.now();
    fetch(url, init).then(function (r) {
      return r.text().then(function (text) {
        var ms = Math.round(performance.now() - started);
        show(out, r.ok, r.status + ' ' + r.statusText + ' · ' + ms + ' ms · ' + init.method + ' ' + url.pathname + url.search, pretty(text));
      });
    }).catch(function (e) {
      show(out, false, 'request failed: ' + e.message);
    }).finally(function () { button.disabled = false; });
  }
  function operation(path, method, op) {
    var d = el('details', 'op');
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
      row.append(name, input(p.in + ':' + p.name, isArray ? 'comma-separated values' : (p.schema && p.schema.type) || 'string'));
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
      if (media && media.example !== undefined) area.value = typeof media.example === 'string' ? media.example : JSON.stringify(media.example, null, 2);
      row.append(name, area);
      form.append(row);
    }
    var button = el('button', '', 'Send');
    button.type = 'submit';
    var out = el('div', 'out');
    form.append(button, out);
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      send(path, method, params, form, out, button);
    });
    d.append(form);
    return d;
  }
  function render(doc) {
    document.title = doc.info.title + ' · API docs';
    document.getElementById('title').textContent = doc.info.title + ' ' + doc.info.version;
    document.getElementById('desc').textContent = doc.info.description || '';
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

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The page and its Content-Security-Policy. Both are constant: the page holds no server data and reads
 * everything from `openapi.json`.
 *
 * @example
 * ```ts
 * const { html, csp } = docsPage();
 * res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp }).end(html);
 * ```
 */
export function docsPage(): { readonly html: string; readonly csp: string } {
  return PAGE;
}

const PAGE = Object.freeze({
  html: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>API docs</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<header><h1 id="title">API docs</h1><p id="desc"></p></header>
<main>
<div class="key"><label for="api-key">API key</label><input id="api-key" type="password" autocomplete="off" placeholder="sent as X-API-Key when filled"></div>
<div id="ops"><p class="note">Loading openapi.json…</p></div>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`,
  csp: [
    "default-src 'none'",
    `script-src ${sha256(SCRIPT)}`,
    `style-src ${sha256(STYLE)}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
});
