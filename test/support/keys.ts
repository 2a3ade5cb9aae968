/** Test keys written to a temporary folder in every format the gateway reads. */
import { generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

export interface TestKey {
  readonly label: string;
  readonly alg: 'RS384' | 'ES384';
  readonly path: string;
  readonly publicKey: KeyObject;
}

/** RSA in PKCS#1, PKCS#8 and JWK; EC P-384 in SEC1, PKCS#8 and JWK. */
export function writeTestKeys(t: TestContext): TestKey[] {
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-keys-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  const files: [string, 'RS384' | 'ES384', KeyObject, string][] = [
    ['RSA PKCS#1', 'RS384', rsa.publicKey, rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string],
    ['RSA PKCS#8', 'RS384', rsa.publicKey, rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string],
    ['RSA JWK', 'RS384', rsa.publicKey, JSON.stringify(rsa.privateKey.export({ format: 'jwk' }))],
    ['EC SEC1', 'ES384', ec.publicKey, ec.privateKey.export({ type: 'sec1', format: 'pem' }) as string],
    ['EC PKCS#8', 'ES384', ec.publicKey, ec.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string],
    ['EC JWK', 'ES384', ec.publicKey, JSON.stringify({ ...ec.privateKey.export({ format: 'jwk' }), alg: 'ES384' })],
  ];
  return files.map(([label, alg, publicKey, text], i) => {
    const path = join(dir, `key-${i}${label.includes('JWK') ? '.json' : '.pem'}`);
    writeFileSync(path, text);
    return { label, alg, path, publicKey };
  });
}

/** Writes `text` to a temporary file and returns its path. */
export function writeTemp(t: TestContext, name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-file-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Three distinct private key files for rotation tests: EC P-384, RSA 2048, and a second EC P-384. */
export function threeKeys(t: TestContext): { path: string; publicKey: KeyObject }[] {
  const [rsa, , , ec] = writeTestKeys(t);
  const third = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  return [
    { path: ec!.path, publicKey: ec!.publicKey },
    { path: rsa!.path, publicKey: rsa!.publicKey },
    { path: writeTemp(t, 'third.pem', third.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string), publicKey: third.publicKey },
  ];
}
