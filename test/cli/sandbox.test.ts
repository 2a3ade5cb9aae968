/**
 * Issue 25.4, through bin/fhirgate.js: `fhirgate sandbox` prints connection strings and command lines that
 * work as printed, runs until SIGINT/SIGTERM; `serve` says at start-up what it serves, by path and source
 * name, never a secret.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { ROOT } from '../support/code-tree.js';
import { runCli, startCli, tempDir, waitServing, type CliRun } from '../support/run-cli.js';

/** Waits until `text` is in the run's stdout; fails if the command exits first. */
async function waitFor(run: CliRun, text: string): Promise<string> {
  const deadline = AbortSignal.timeout(60_000);
  while (!run.stdout().includes(text)) {
    if (run.child.exitCode !== null) throw new Error(`exited ${run.child.exitCode}:\n${run.stdout()}\n${run.stderr()}`);
    if (deadline.aborted) throw new Error(`no "${text}" within 60 s:\n${run.stdout()}\n${run.stderr()}`);
    await Promise.race([once(run.child.stdout, 'data'), run.exited, once(deadline, 'abort')]);
  }
  return run.stdout();
}

/** The printed `npx fhirgate <command> …` line. */
function lineOf(banner: string, command: string): string {
  const line = banner.split('\n').find((l) => l.trim().startsWith(`npx fhirgate ${command} `));
  assert.ok(line, `an npx fhirgate ${command} line is printed`);
  return line.trim();
}

/** The arguments of a printed `npx fhirgate …` line (the sandbox quotes with single quotes only). */
function argsOf(banner: string, command: string): string[] {
  return [...lineOf(banner, command).slice('npx fhirgate '.length).matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

async function startSandboxCommand(t: TestContext, args: string[]): Promise<{ run: CliRun; banner: string }> {
  const run = startCli(t, ['sandbox', '--port', '0', ...args]);
  return { run, banner: await waitFor(run, 'Ctrl-C stops the sandbox') };
}

test('fhirgate sandbox prints its addresses and connection strings, and a check line that works as printed; SIGINT stops it, exit 0', async (t) => {
  const { run, banner } = await startSandboxCommand(t, []);
  const base = /FHIR base\s+(http:\/\/127\.0\.0\.1:\d+\/fhir\/R4)/.exec(banner)?.[1];
  assert.ok(base, banner);
  assert.equal((await fetch(`${base}/metadata`)).status, 200);
  assert.equal((await fetch(`${base}/Patient`)).status, 401, 'not open: a token is needed');
  const strings = banner.split('\n').filter((l) => l.trim().startsWith('fhir://')).map((l) => l.trim().split(/\s+/)[0]!);
  assert.equal(strings.length, 2);
  assert.match(strings[0]!, /client_id=fhirgate-demo&client_secret=demo-secret&token_url=/);
  assert.doesNotMatch(strings[1]!, /token_url/);
  const check = await runCli(t, [...argsOf(banner, 'check'), '--source', `discovered=${strings[1]}`], {}, undefined, { bin: true });
  assert.equal(check.code, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /^sandbox .*ok: Bearer token received.*ok: Patient search answered/m);
  assert.match(check.stdout, /^discovered .*ok: Bearer token received.*ok: Patient search answered/m);
  run.child.kill('SIGINT');
  assert.equal(await run.exited, 0);
  assert.match(run.stdout(), /fhirgate sandbox: stopped\n$/);
  await assert.rejects(fetch(`${base}/metadata`), 'the sandbox no longer listens');
});

test('fhirgate sandbox: the printed check line runs as printed, by a shell, in the clone', async (t) => {
  const { banner } = await startSandboxCommand(t, []);
  const shell = spawn('sh', ['-c', lineOf(banner, 'check')], { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '' } });
  t.after(() => shell.kill('SIGKILL'));
  let out = '';
  shell.stdout.on('data', (c: Buffer) => (out += c.toString()));
  shell.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const [code] = (await once(shell, 'exit')) as [number | null];
  assert.equal(code, 0, out);
  assert.match(out, /^sandbox .*ok: Bearer token received.*ok: Patient search answered/m);
});

test('fhirgate sandbox: the printed export line exports, the printed serve line serves', async (t) => {
  const { banner } = await startSandboxCommand(t, []);
  const out = join(tempDir(t), 'export');
  const exportArgs = argsOf(banner, 'export');
  exportArgs[exportArgs.indexOf('--out') + 1] = out;
  const exported = await runCli(t, exportArgs);
  assert.equal(exported.code, 0, exported.stderr);
  assert.deepEqual(readdirSync(out).sort(), ['Observation.ndjson', 'Patient.ndjson']);

  const served = startCli(t, [...argsOf(banner, 'serve'), '--port', '0']);
  const serving = (await waitServing(served)) as unknown as { gateway: string; serves: unknown };
  assert.deepEqual(serving.serves, [
    { path: '/fhir', component: 'AsyncFHIRGateway', sources: ['sandbox'] },
    { path: '/fhir/sandbox', component: 'FHIRFacade', sources: ['sandbox'] },
    { path: '/fhir/all', component: 'FHIRFacade', sources: ['sandbox'] },
  ]);
  assert.equal((serving as unknown as { apiKeys: string }).apiKeys, 'off');
  assert.equal((await fetch(`${serving.gateway}/metadata`)).status, 200);
  const viaFacade = await fetch(`${serving.gateway}/sandbox/Patient?_count=1`);
  assert.equal(viaFacade.status, 200, 'sandbox + serve: a working FHIR facade in two commands, the token held by the gateway');
  assert.equal(((await viaFacade.json()) as { resourceType: string }).resourceType, 'Bundle');
  served.child.kill('SIGTERM');
  assert.equal(await served.exited, 0);
});

test('fhirgate sandbox --open --seed b: a public server and its credential-free connection string; SIGTERM stops it', async (t) => {
  const { run, banner } = await startSandboxCommand(t, ['--open', '--seed', 'b']);
  assert.match(banner, /data set b, open: no token needed/);
  const publicString = /^\s+(fhir:\/\/127\.0\.0\.1:\d+\/fhir\/R4\/)\s+\(no credentials/m.exec(banner)?.[1];
  assert.ok(publicString, banner);
  assert.deepEqual(argsOf(banner, 'check'), ['check', '--source', `sandbox=${publicString}`]);
  const base = /FHIR base\s+(\S+)/.exec(banner)![1]!;
  const bundle = (await (await fetch(`${base}/Patient?_count=1`)).json()) as { entry: Array<{ resource: { id: string } }> };
  assert.match(bundle.entry[0]!.resource.id, /^b-patient-/);
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('fhirgate sandbox: a bad --seed is a command-line mistake (exit 2), a busy port a failure (exit 1), each naming the option', async (t) => {
  const seed = await runCli(t, ['sandbox', '--port', '0', '--seed', 'c']);
  assert.equal(seed.code, 2);
  assert.match(seed.stderr, /^fhirgate sandbox: --seed: must be a, b or none\nSee fhirgate sandbox --help\n$/);
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => busy.close(() => resolve())));
  const port = (busy.address() as { port: number }).port;
  const taken = await runCli(t, ['sandbox', '--port', String(port)]);
  assert.equal(taken.code, 1);
  assert.match(taken.stderr, new RegExp(`^fhirgate sandbox: port: ${port} on 127\\.0\\.0\\.1 is in use; pick another with --port \\(0: any free port\\)\\n$`));
});

test('serve says at start-up what it serves: each component under its prefix, sources by name, the host routes, whether API keys are asked for; never a key or a secret', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'cds.mjs'), 'export default () => {};\n');
  writeFileSync(join(dir, 'nr.mjs'), "export default (nr) => nr.method('ProcessDocument', ({ document }) => ({ document, error: '' }));\n");
  const secret = 'Xq9-serve-secret';
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({
    sources: { ehr: 'fhir://127.0.0.1:9/r4/?client_id=app&client_secret=${EHR_SECRET}&token_url=http://127.0.0.1:9/token', lab: 'fhir://127.0.0.1:9/lab/' },
    gateway: { path: '/api/fhir' },
    cds: { module: './cds.mjs' },
    notereader: { path: '/nr', module: './nr.mjs' },
  }));
  const run = startCli(t, ['serve', '--config', 'fhirgate.json', '--port', '0', '--metrics'], { EHR_SECRET: secret, FHIRGATE_API_KEYS: 'Xq9-api-key' }, dir);
  const serving = (await waitServing(run)) as unknown as { url: string; serves: Array<{ path: string; component: string; sources?: string[] }>; host: string[]; apiKeys: string };
  assert.equal(serving.apiKeys, 'required');
  assert.deepEqual(serving.serves, [
    { path: '/api/fhir', component: 'AsyncFHIRGateway', sources: ['ehr', 'lab'] },
    { path: '/api/fhir/ehr', component: 'FHIRFacade', sources: ['ehr'] },
    { path: '/api/fhir/lab', component: 'FHIRFacade', sources: ['lab'] },
    { path: '/api/fhir/all', component: 'FHIRFacade', sources: ['ehr', 'lab'] },
    { path: '/cds', component: 'CDSHooksService' },
    { path: '/nr', component: 'NoteReaderService' },
  ]);
  assert.deepEqual(serving.host, ['/', '/docs', '/openapi.json', '/health', '/health/ready', '/gateway/status', '/metrics']);
  // Every path said is served: each component answers under its prefix, each host route answers.
  const at = (component: string) => serving.serves.find((x) => x.component === component)!.path;
  const probes = [`${at('AsyncFHIRGateway')}/metadata`, `${at('CDSHooksService')}/cds-services`, `${at('NoteReaderService')}/?wsdl`, ...serving.host.filter((p) => p !== '/health/ready')];
  for (const path of probes) assert.equal((await fetch(`${serving.url}${path}`, { headers: { 'x-api-key': 'Xq9-api-key' } })).status, 200, path);
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
  for (const hidden of [secret, 'Xq9-api-key']) assert.ok(!run.stdout().includes(hidden) && !run.stderr().includes(hidden));
  assert.ok(!run.stdout().includes('client_secret'), 'no connection string is logged');
});
