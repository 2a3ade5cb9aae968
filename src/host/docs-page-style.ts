/**
 * The inline stylesheet of `GET /docs` (allowed by its SHA-256 hash in the page's CSP).
 * @module
 */

/** The `/docs` page's CSS. */
export const DOCS_STYLE = `
:root{--bg:#f6f7f9;--card:#fff;--ink:#1d2330;--mute:#5d6677;--line:#dde1e8;--get:#1f7a4d;--post:#1d5fb8;--put:#9a6400;--patch:#6b4bb8;--delete:#b42318}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--ink)}
header{background:#14213d;color:#fff;padding:20px 32px}header h1{margin:0;font-size:22px;font-weight:600}header p{margin:4px 0 0;color:#c9d1e3}
main{max-width:1080px;margin:0 auto;padding:24px 32px 64px}
.key{display:flex;gap:8px;align-items:center;margin:0 0 20px;padding:12px 16px;background:var(--card);border:1px solid var(--line);border-radius:8px}
.key label{font-weight:600}.key input{flex:1}
h2{font-size:17px;margin:28px 0 10px;color:var(--mute);letter-spacing:.01em}
h3{font-size:14px;margin:18px 0 6px;color:var(--mute)}
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
button{font:600 14px system-ui,sans-serif;background:#14213d;color:#fff;border:0;border-radius:6px;padding:8px 18px;cursor:pointer;margin:0 8px 0 0}
button.alt{background:#fff;color:#14213d;border:1px solid #14213d}
button:disabled{opacity:.6;cursor:wait}
.out{margin:12px 0 0}.status{font:600 13px ui-monospace,Menlo,Consolas,monospace}.ok{color:var(--get)}.bad{color:var(--delete)}
pre{background:#0f1628;color:#e4e8f1;padding:12px;border-radius:6px;overflow:auto;max-height:420px;font-size:12.5px;margin:6px 0 0;white-space:pre-wrap;word-break:break-all}
.note{color:var(--mute)}
.resp{border-top:1px solid var(--line);padding:8px 0}.resp .code{font:600 13px ui-monospace,Menlo,Consolas,monospace;margin:0 8px 0 0}
.resp .ctype{font:12px ui-monospace,Menlo,Consolas,monospace;color:var(--mute);margin:6px 0 0}
.resp details>summary{cursor:pointer;color:var(--mute);font-size:13px;margin:6px 0 0}
.label{font-size:12px;color:var(--mute);margin:6px 0 0}
dl.headers{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:4px 0 0;font:12.5px ui-monospace,Menlo,Consolas,monospace}
dl.headers dt{color:var(--mute)}dl.headers dd{margin:0;overflow-wrap:anywhere}
input.missing{border-color:var(--delete);outline:1px solid var(--delete)}
.link{margin-left:auto;color:var(--mute);text-decoration:none;padding:0 4px}
.path,.sum{min-width:0;overflow-wrap:anywhere}
@media (max-width:640px){header{padding:16px}main{padding:16px 10px 48px}form{padding:10px}
.param{grid-template-columns:1fr;gap:4px}details.op>summary{flex-wrap:wrap;gap:6px 10px;padding:10px}
.key{flex-wrap:wrap}button{margin:0 8px 8px 0}dl.headers{grid-template-columns:1fr}}
`;
