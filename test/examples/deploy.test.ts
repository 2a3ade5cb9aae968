/**
 * examples/deploy: what can be checked without Docker or Kubernetes (neither runs here). The Dockerfile's
 * HEALTHCHECK command is run for real against a listening host; the manifest is parsed (a strict YAML
 * subset) and its security and disruption settings read from the structure.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createServiceAPI } from '../../src/host/index.js';
import { freePort } from '../support/free-port.js';
import { parseYamlSubset } from '../support/yaml-subset.js';
import { ROOT, tempDir } from '../support/run-cli.js';

const DOCKERFILE = readFileSync(join(ROOT, 'examples/deploy/Dockerfile'), 'utf8');
const MANIFEST = readFileSync(join(ROOT, 'examples/deploy/kubernetes.yaml'), 'utf8');

/** The instruction lines of the Dockerfile, continuation lines joined, comments dropped. */
const instructions = DOCKERFILE.replace(/\\\n/g, ' ').split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
const instruction = (name: string) => instructions.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1).trim());

test('the Dockerfile runs a supported Node LTS as a non-root user, with fhirgate itself as PID 1', () => {
  assert.deepEqual(instruction('FROM'), ['node:24-slim']);
  assert.equal((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node, '>=20.19', 'the library still runs on Node 20 (20.19: require of ES modules)');
  assert.deepEqual(instruction('USER'), ['node']);
  const cmd = JSON.parse(instruction('CMD')[0]!) as string[];
  assert.deepEqual(cmd.slice(0, 2), ['/app/node_modules/.bin/fhirgate', 'serve'], 'exec form: no shell between the signal and fhirgate');
  assert.deepEqual(instruction('STOPSIGNAL'), ['SIGTERM']);
});

test('the Dockerfile HEALTHCHECK asks /health on the port fhirgate listens on: PORT, else the config\'s port', async (t) => {
  const healthcheck = /CMD (\[.*\])$/.exec(instruction('HEALTHCHECK')[0]!)![1]!;
  const [node, flag, script] = JSON.parse(healthcheck) as [string, string, string];
  assert.deepEqual([node, flag], ['node', '-e']);
  const app = createServiceAPI({ apiKeys: [] });
  const server = await app.listen(0);
  t.after(() => app.close());
  const live = (server.address() as { port: number }).port;
  const dead = await freePort();
  const dir = tempDir(t);
  const config = join(dir, 'fhirgate.json');
  const run = async (port: number, env: Record<string, string> = {}) => {
    writeFileSync(config, JSON.stringify({ port, sources: {} }));
    const { PORT: _unset, ...rest } = process.env;
    // The script reads /app/fhirgate.json in the image; here the same script reads the temporary file.
    const child = spawn(process.execPath, ['-e', script.replace('/app/fhirgate.json', config)], { env: { ...rest, ...env }, stdio: 'ignore' });
    return (await once(child, 'exit'))[0] as number;
  };
  assert.equal(await run(live), 0, 'the config\'s port, fhirgate listening');
  assert.equal(await run(dead), 1, 'the config\'s port, nothing listening');
  assert.equal(await run(dead, { PORT: String(live) }), 0, 'PORT wins over the config, as in fhirgate serve');
});

test('the Kubernetes manifest: RuntimeDefault seccomp, no service-account token, secrets from a Secret (env and a key file), a PodDisruptionBudget', () => {
  const docs = parseYamlSubset(MANIFEST) as Array<Record<string, any>>;
  assert.deepEqual(docs.map((d) => d['kind']), ['Deployment', 'PodDisruptionBudget', 'Service']);
  const [deployment, pdb] = docs as [Record<string, any>, Record<string, any>];
  const pod = deployment['spec']['template']['spec'];
  assert.equal(pod['automountServiceAccountToken'], false);
  assert.deepEqual(pod['securityContext']['seccompProfile'], { type: 'RuntimeDefault' });
  assert.equal(pod['securityContext']['runAsNonRoot'], true);
  const [container] = pod['containers'];
  assert.equal(container['securityContext']['allowPrivilegeEscalation'], false);
  const fromSecret = container['env'].filter((e: any) => e['valueFrom']?.['secretKeyRef']?.['name'] === 'fhirgate-secrets').map((e: any) => e['name']);
  assert.ok(fromSecret.includes('FHIRGATE_API_KEYS'), 'API keys from the Secret');
  const keys = pod['volumes'].find((v: any) => v['secret']?.['secretName'] === 'fhirgate-secrets');
  assert.ok(keys !== undefined, 'a volume of the Secret');
  const mount = container['volumeMounts'].find((m: any) => m['name'] === keys['name']);
  assert.equal(mount['readOnly'], true);
  assert.match(MANIFEST, new RegExp(`client_secret_path=${mount['mountPath']}/${keys['secret']['items'][0]['path']}`), 'the connection string names the mounted key file');
  assert.equal(pdb['apiVersion'], 'policy/v1');
  assert.deepEqual(pdb['spec']['selector'], deployment['spec']['selector']);
  assert.ok(pdb['spec']['minAvailable'] < deployment['spec']['replicas']);
  assert.ok(pod['terminationGracePeriodSeconds'] * 1000 > 20_000 + 5_000, 'the grace period covers preStop + the stopTimeoutMs the comments suggest');
  assert.match(MANIFEST, /one process per pod/i);
});
