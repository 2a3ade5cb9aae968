/**
 * Test helpers for the host: fake mountable components, a raw HTTP client, an OpenAPI checker (the
 * capturing logger and `startApp` are in test/support/).
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import type { EventDispatcher } from '../../src/events/types.js';
import { outcomeErrorReply } from '../../src/gateway/http-face/fhir-reply.js';
import { MOUNT } from '../../src/mount/index.js';
import type { Mountable, OpenAPIPaths, Route } from '../../src/mount/index.js';

export interface FakeSpec {
  kind?: 'gateway' | 'service';
  defaultPath?: string;
  routes?: Route[];
  status?: () => Record<string, unknown>;
  openapi?: () => OpenAPIPaths;
}

/** A mountable component that records what the host did with it. */
export class FakeGateway {
  readonly spec: FakeSpec;
  events: EventDispatcher | null | 'unset' = 'unset';
  closeCalls = 0;
  constructor(spec: FakeSpec = {}) {
    this.spec = spec;
  }
  [MOUNT](): Mountable {
    return {
      kind: this.spec.kind ?? 'gateway',
      defaultPath: this.spec.defaultPath ?? '/fhir',
      routes: () => this.spec.routes ?? [],
      status: this.spec.status ?? (() => ({ sources: ['a'] })),
      openapi: this.spec.openapi ?? (() => ({})),
      useEvents: (dispatcher) => void (this.events = dispatcher),
      close: async () => void (this.closeCalls += 1),
      // A gateway answers its own errors as OperationOutcome, through the contract's errorReply.
      ...((this.spec.kind ?? 'gateway') === 'gateway' ? { errorReply: outcomeErrorReply } : {}),
    };
  }
}

/** The same, under a service-ish class name. */
export class FakeService extends FakeGateway {
  constructor(spec: FakeSpec = {}) {
    super({ kind: 'service', defaultPath: '/svc', ...spec });
  }
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json(): any;
}

/** One HTTP request on a fresh connection (no pooling), the whole answer read. */
export function call(
  base: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer; signal?: AbortSignal } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const req = httpRequest(
      { host: url.hostname, port: url.port, path, method: init.method ?? 'GET', headers: init.headers ?? {}, agent: false, signal: init.signal },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
        });
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/** Structural checks every document must pass. */
export function checkOpenApi(doc: any): void {
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(typeof doc.info.title, 'string');
  const ids = new Set<string>();
  const resolve = (ref: string) => {
    assert.ok(ref.startsWith('#/'), `local ref ${ref}`);
    let node = doc;
    for (const part of ref.slice(2).split('/')) {
      node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      assert.ok(node !== undefined, `$ref ${ref} resolves`);
    }
  };
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) {
        if (k === '$ref') resolve(v as string);
        else walk(v);
      }
    }
  };
  walk(doc);
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    assert.ok(path.startsWith('/'), path);
    assert.ok(!path.includes(':'), `OpenAPI style path: ${path}`);
    const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const [method, op] of Object.entries<any>(item)) {
      assert.ok(['get', 'post', 'put', 'patch', 'delete'].includes(method), method);
      assert.ok(!ids.has(op.operationId), `operationId ${op.operationId} is unique`);
      ids.add(op.operationId);
      assert.ok(op.responses && Object.keys(op.responses).length > 0, `${method} ${path} has responses`);
      const declared = (op.parameters ?? []).filter((p: any) => p.in === 'path');
      assert.deepEqual(declared.map((p: any) => p.name).sort(), [...inPath].sort(), `${method} ${path} declares its path parameters`);
      for (const p of declared) assert.equal(p.required, true);
    }
  }
}


/** Sends `head` as it is (one request, or several pipelined) on a new connection, ends its side, and resolves with the whole answer text. */
export function rawRequest(base: string, head: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.end(head));
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}
