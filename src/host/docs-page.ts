/**
 * `GET /docs`: one self-contained HTML page (inline CSS and JS, no external script, font or image) that
 * fetches `openapi.json` next to it, lists every operation with a form pre-filled from the examples,
 * sends the request from the page (same origin) and shows status and body, copies it as `curl`, and
 * shows every response with its schema and an example. Its Content-Security-Policy allows
 * only its own inline script and style (by SHA-256 hash) and `connect-src 'self'`.
 * @module
 */
import { createHash } from 'node:crypto';
import { DOCS_SCRIPT as SCRIPT } from './docs-page-script.js';
import { DOCS_STYLE as STYLE } from './docs-page-style.js';

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The page and its Content-Security-Policy. Both are constant: the page holds no server data and reads
 * everything from `openapi.json`.
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
