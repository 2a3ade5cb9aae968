// The import graph drawn in docs/architecture.md ("Architecture") and in DESIGN.md, held against the code: every
// relative import between two rooms of src/ must follow the table below. A new room, or a new arrow
// between rooms, starts with a change to this table and to the drawing in docs/architecture.md.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { ROOT } from './support/code-tree.js';

const root = ROOT;

/** The leaves every room may import. */
const LEAVES = ['errors', 'version'];

/**
 * Which rooms each room may import (besides itself and the leaves). Rooms that do not exist yet
 * (cli, cluster, redis, nats) are listed so that adding them needs no change here.
 */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  errors: [],
  version: [],
  fhir: [],
  lib: [],
  events: ['lib', 'http'],
  http: ['lib'],
  auth: ['http', 'lib'],
  mount: ['fhir'],
  gateway: ['auth', 'http', 'fhir', 'events', 'mount', 'lib'],
  facade: ['gateway', 'auth', 'http', 'fhir', 'events', 'mount', 'lib'],
  host: ['mount', 'events', 'fhir', 'lib'],
  cds: ['http', 'fhir', 'events', 'mount', 'lib'],
  soap: ['fhir', 'events', 'mount', 'lib'],
  sandbox: ['fhir', 'lib'],
  cluster: ['host', 'events', 'lib'],
  redis: ['host', 'events', 'lib'],
  nats: ['host', 'events', 'lib'],
  // The command line uses the public entries of everything.
  cli: ['index', 'gateway', 'facade', 'host', 'cds', 'soap', 'sandbox', 'mount', 'events', 'fhir', 'auth', 'http', 'lib', 'cluster', 'redis', 'nats'],
  // The main package entry.
  index: ['auth', 'cds', 'events', 'fhir', 'gateway', 'host', 'mount', 'lib'],
};

/**
 * Arrows allowed for `import type` only: the contract names the event dispatcher a component is given
 * and the trace context a request carries; the main entry names the shape of a `fhirgate serve` handler
 * module, which the command line defines.
 */
const TYPE_ONLY: Readonly<Record<string, readonly string[]>> = { mount: ['events', 'lib'], index: ['cli'] };

interface Arrow {
  readonly file: string;
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
}

/** The room of a path under `src`: its first folder, or its file name without `.ts` (`errors`, `index`). */
function roomOf(pathUnderSrc: string): string {
  const [first, ...rest] = pathUnderSrc.split('/');
  return rest.length === 0 ? first!.replace(/\.[jt]s$/, '') : first!;
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

/** The relative imports of `file` (static, `import type`, `export ... from`, dynamic `import()`), as paths under `src`. */
function* relativeImports(src: string, file: string): Generator<{ target: string; typeOnly: boolean }> {
  const pattern = /(?:^|\n)\s*(import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g;
  for (const m of readFileSync(file, 'utf8').matchAll(pattern)) {
    const spec = m[3] ?? m[4]!;
    if (spec.startsWith('.')) yield { target: relative(src, resolve(dirname(file), spec)), typeOnly: m[2] !== undefined };
  }
}

/** Every relative import between two rooms of `src`: static, `import type`, `export ... from` and dynamic `import()`. */
function arrows(src: string): Arrow[] {
  const found: Arrow[] = [];
  for (const file of sourceFiles(src)) {
    for (const { target, typeOnly } of relativeImports(src, file)) {
      if (target.startsWith('..')) continue;
      const from = roomOf(relative(src, file));
      const to = roomOf(target);
      if (from !== to) found.push({ file: relative(src, file), from, to, typeOnly });
    }
  }
  return found;
}

/** The arrows the table does not allow, as `file: from -> to` lines. */
function violations(found: readonly Arrow[]): string[] {
  return found
    .filter(({ from, to, typeOnly }) => {
      if (LEAVES.includes(to)) return false;
      if (MAY_IMPORT[from]?.includes(to)) return false;
      return !(typeOnly && TYPE_ONLY[from]?.includes(to));
    })
    .map(({ file, from, to }) => `${file}: ${from} -> ${to}`);
}

test('every import between rooms of src/ follows the drawn direction', () => {
  const found = arrows(join(root, 'src'));
  assert.ok(found.length > 50, `the walk found ${found.length} arrows`);
  assert.deepEqual(violations(found), []);
});

test('every room of src/ is in the table (a new room is drawn before it is built)', () => {
  const rooms = new Set(readdirSync(join(root, 'src')).map((name) => roomOf(name)));
  assert.deepEqual([...rooms].filter((room) => !(room in MAY_IMPORT)), []);
});

test('nothing in the core imports the separate entries (sandbox, cli, cluster, redis, nats)', () => {
  const separate = ['sandbox', 'cli', 'cluster', 'redis', 'nats'];
  const core = Object.keys(MAY_IMPORT).filter((room) => !separate.includes(room) && room !== 'index');
  for (const room of core) assert.deepEqual(MAY_IMPORT[room]!.filter((to) => separate.includes(to)), [], room);
});

/**
 * The gateway's own rooms (DESIGN.md): `core/` is the engine and imports none of the others; the HTTP face
 * needs the core's types (and identity's) only; bulk and identity run on the core; the facade (the files at the room's top) builds
 * the hand-offs to bulk and the face, and the sync bridge runs the async facade in its worker.
 */
const GATEWAY_MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  'gateway/core': [],
  'gateway/http-face': [],
  'gateway/bulk': ['gateway/core'],
  'gateway/identity': ['gateway/core'],
  'gateway/sync': ['gateway', 'gateway/core', 'gateway/bulk'],
  gateway: ['gateway/core', 'gateway/http-face', 'gateway/bulk', 'gateway/identity', 'gateway/sync'],
};

/** Arrows inside the gateway allowed for `import type` only. */
const GATEWAY_TYPE_ONLY: Readonly<Record<string, readonly string[]>> = { 'gateway/http-face': ['gateway/core', 'gateway/identity'] };

/** The gateway sub-room of a path under `src/gateway`: its first folder, or `gateway` for the facade's files. */
function gatewayRoomOf(pathUnderSrc: string): string {
  const [, first, ...rest] = pathUnderSrc.split('/');
  return rest.length === 0 ? 'gateway' : `gateway/${first}`;
}

/** Every relative import between two gateway sub-rooms of `src`, as `file: from -> to` lines the table does not allow. */
function gatewayViolations(src: string): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(join(src, 'gateway'))) {
    for (const { target, typeOnly } of relativeImports(src, file)) {
      if (!target.startsWith('gateway/')) continue;
      const path = relative(src, file);
      const from = gatewayRoomOf(path);
      const to = gatewayRoomOf(target);
      if (from === to || GATEWAY_MAY_IMPORT[from]?.includes(to)) continue;
      if (typeOnly && GATEWAY_TYPE_ONLY[from]?.includes(to)) continue;
      found.push(`${path}: ${from} -> ${to}`);
    }
  }
  return found;
}

test('inside the gateway: core imports none of bulk, sync, the HTTP face and the facade; the face imports core types only', () => {
  const rooms = new Set([...sourceFiles(join(root, 'src', 'gateway'))].map((f) => gatewayRoomOf(relative(join(root, 'src'), f))));
  assert.deepEqual([...rooms].filter((room) => !(room in GATEWAY_MAY_IMPORT)), [], 'every gateway sub-room is in the table');
  assert.deepEqual(gatewayViolations(join(root, 'src')), []);
});

test('negative control: a gateway sub-room import against the direction fails the check', (t) => {
  const src = mkdtempSync(join(tmpdir(), 'fhirgate-arch-gw-'));
  t.after(() => rmSync(src, { recursive: true, force: true }));
  for (const room of ['core', 'http-face', 'bulk']) mkdirSync(join(src, 'gateway', room), { recursive: true });
  writeFileSync(join(src, 'gateway', 'core', 'engine.ts'), "import { bulkExport } from '../bulk/export.js';\nexport const x = bulkExport;\n");
  writeFileSync(join(src, 'gateway', 'core', 'events.ts'), 'export class GatewayEvents {}\n');
  writeFileSync(join(src, 'gateway', 'bulk', 'export.ts'), "import type { GatewayEvents } from '../core/events.js';\nexport const bulkExport = 1;\n");
  writeFileSync(join(src, 'gateway', 'http-face', 'face.ts'), [
    "import type { GatewayEvents } from '../core/events.js';",
    "import { GatewayEvents as Runtime } from '../core/events.js';",
    "import { AsyncFHIRGateway } from '../async-gateway.js';",
    '',
  ].join('\n'));
  writeFileSync(join(src, 'gateway', 'async-gateway.ts'), "import { x } from './core/engine.js';\nexport const AsyncFHIRGateway = x;\n");
  assert.deepEqual(gatewayViolations(src).sort(), [
    'gateway/core/engine.ts: gateway/core -> gateway/bulk',
    'gateway/http-face/face.ts: gateway/http-face -> gateway',
    'gateway/http-face/face.ts: gateway/http-face -> gateway/core',
  ]);
});

test('negative control: an import against the direction fails the check', (t) => {
  const src = mkdtempSync(join(tmpdir(), 'fhirgate-arch-'));
  t.after(() => rmSync(src, { recursive: true, force: true }));
  for (const room of ['host', 'gateway', 'mount', 'lib']) mkdirSync(join(src, room));
  writeFileSync(join(src, 'gateway', 'index.ts'), "export const AsyncFHIRGateway = class {};\n");
  writeFileSync(join(src, 'mount', 'index.ts'), "export const MOUNT = Symbol('m');\n");
  writeFileSync(join(src, 'lib', 'options.ts'), "import { MOUNT } from '../mount/index.js';\nexport const x = MOUNT;\n");
  writeFileSync(join(src, 'host', 'app.ts'), [
    "import { MOUNT } from '../mount/index.js';",
    "import type { AsyncFHIRGateway } from '../gateway/index.js';",
    "export const later = () => import('../gateway/index.js');",
    'export { MOUNT };',
    '',
  ].join('\n'));
  assert.deepEqual(violations(arrows(src)).sort(), [
    'host/app.ts: host -> gateway',
    'host/app.ts: host -> gateway',
    'lib/options.ts: lib -> mount',
  ]);
});
