import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runInNewContext } from 'node:vm';
import { VERSION } from '../../src/version.js';
import { startApp } from '../support/serve.js';
import { call } from './helpers.js';

/** Just enough of a DOM to run the docs page's script. */
class FakeElement {
  readonly tagName: string;
  readonly children: FakeElement[] = [];
  readonly dataset: Record<string, string> = {};
  readonly listeners = new Map<string, (ev: { preventDefault(): void }) => void>();
  className = '';
  name = '';
  value = '';
  type = '';
  placeholder = '';
  disabled = false;
  #text = '';
  constructor(tagName: string) {
    this.tagName = tagName;
  }
  get textContent(): string {
    return this.#text + this.children.map((c) => c.textContent).join('');
  }
  set textContent(text: string) {
    this.#text = text;
    this.children.length = 0;
  }
  append(...nodes: FakeElement[]): void {
    this.children.push(...nodes);
  }
  replaceChildren(...nodes: FakeElement[]): void {
    this.#text = '';
    this.children.splice(0, this.children.length, ...nodes);
  }
  addEventListener(type: string, fn: (ev: { preventDefault(): void }) => void): void {
    this.listeners.set(type, fn);
  }
  all(): FakeElement[] {
    return this.children.flatMap((c) => [c, ...c.all()]);
  }
  get elements(): Record<string, FakeElement | undefined> {
    return new Proxy({}, { get: (_, key) => this.all().find((e) => e.name === key) });
  }
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(check(), 'safety net: the page never got there');
}

test('the docs page renders every operation and sends a filled-in request with the API key', async (t) => {
  const { base } = await startApp(t, { apiKeys: ['page-key'], title: 'Docs app' }, (app) => {
    app.get('/summary/:id', { summary: 'Summary', query: { sources: { array: true } } }, (ctx) => ({ id: ctx.params.id, sources: ctx.query['sources'] }));
    app.post('/notes', async (ctx) => ({ note: await ctx.json() }));
  });
  const html = (await call(base, '/docs')).text;
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
  const ids = new Map(['api-key', 'ops', 'title', 'desc'].map((id) => [id, new FakeElement('div')]));
  const document = { title: '', getElementById: (id: string) => ids.get(id), createElement: (tag: string) => new FakeElement(tag) };
  runInNewContext(script, { document, location: { href: `${base}/docs` }, fetch, URL, URLSearchParams, performance, Map, JSON, Object, encodeURIComponent });

  const ops = ids.get('ops')!;
  await until(() => ops.all().some((e) => e.tagName === 'details' && e.className === 'op'));
  const doc = (await call(base, '/openapi.json')).json();
  const count = Object.values<Record<string, unknown>>(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
  const details = ops.all().filter((e) => e.tagName === 'details' && e.className === 'op');
  assert.equal(details.length, count);
  assert.equal(document.title, 'Docs app · API docs');
  assert.equal(ids.get('title')!.textContent, 'Docs app · API version 1.0.0');
  assert.match(ids.get('desc')!.textContent, new RegExp(`Served by fhirgate ${VERSION.replaceAll('.', '\\.')}\\.$`));

  const summary = details.find((d) => d.textContent.includes('/summary/{id}'))!;
  const form = summary.all().find((e) => e.tagName === 'form')!;
  form.elements['path:id']!.value = 'a b';
  form.elements['query:sources']!.value = 'x, y';
  const submit = (f: FakeElement) => f.listeners.get('submit')!({ preventDefault: () => {} });
  submit(form);
  const out = form.all().find((e) => e.className === 'out')!;
  await until(() => out.textContent !== '');
  assert.match(out.textContent, /^401 /, 'without the key');

  ids.get('api-key')!.value = 'page-key';
  submit(form);
  await until(() => out.textContent.startsWith('200'));
  assert.match(out.textContent, /GET \/summary\/a%20b\?sources=x&sources=y/);
  assert.deepEqual(JSON.parse(out.children[1]!.textContent), { id: 'a b', sources: ['x', 'y'] });

  const notes = details.find((d) => d.textContent.includes('/notes'))!;
  const notesForm = notes.all().find((e) => e.tagName === 'form')!;
  notesForm.elements['body']!.value = '{"text":"hello"}';
  submit(notesForm);
  const notesOut = notesForm.all().find((e) => e.className === 'out')!;
  await until(() => notesOut.textContent !== '');
  assert.deepEqual(JSON.parse(notesOut.children[1]!.textContent), { note: { text: 'hello' } });
});
