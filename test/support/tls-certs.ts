/**
 * A private CA and the certificates the TLS tests need, made at run time with Debian's `openssl` in a
 * temp dir removed after the test: a server certificate for 127.0.0.1 and localhost, a client
 * certificate, an expired client certificate, a second (wrong) CA, and an encrypted copy of the client key.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { systemBinary } from './system-binary.js';

/** Paths of the PEM files. */
export interface TestCertificates {
  readonly dir: string;
  readonly ca: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** `clientKey` encrypted with the passphrase in the file `passphrase`. */
  readonly clientKeyEncrypted: string;
  readonly passphrase: string;
  /** A client certificate of the same CA whose validity ended before it began. */
  readonly expiredCert: string;
  readonly expiredKey: string;
  /** Another CA, that signed nothing here. */
  readonly wrongCa: string;
}

/**
 * Makes the files for test `t`, or skips it when `openssl` is missing (fails it under CI=true); returns
 * `undefined` when skipped.
 *
 * @example
 * ```ts
 * const certs = testCertificates(t);
 * if (certs === undefined) return;
 * ```
 */
export function testCertificates(t: TestContext): TestCertificates | undefined {
  const openssl = systemBinary(t, 'openssl');
  if (openssl === undefined) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const at = (name: string): string => join(dir, name);
  const run = (...args: string[]): void => void execFileSync(openssl, args, { stdio: 'pipe' });
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  run('req', '-x509', ...key, '-keyout', at('ca-key.pem'), '-out', at('ca.pem'), '-subj', '/CN=fhirgate test CA', '-days', '2');
  run('req', '-x509', ...key, '-keyout', at('wrong-ca-key.pem'), '-out', at('wrong-ca.pem'), '-subj', '/CN=another CA', '-days', '2');
  const sign = (name: string, subject: string, days: string, extensions: string): void => {
    run('req', ...key, '-keyout', at(`${name}-key.pem`), '-out', at(`${name}.csr`), '-subj', subject);
    writeFileSync(at(`${name}.ext`), extensions);
    run('x509', '-req', '-in', at(`${name}.csr`), '-CA', at('ca.pem'), '-CAkey', at('ca-key.pem'), '-CAcreateserial', '-out', at(`${name}.pem`), '-days', days, '-extfile', at(`${name}.ext`));
  };
  sign('server', '/CN=localhost', '2', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  sign('client', '/CN=fhirgate client', '2', 'extendedKeyUsage=clientAuth\n');
  sign('expired', '/CN=fhirgate expired client', '-1', 'extendedKeyUsage=clientAuth\n');
  writeFileSync(at('passphrase.txt'), 'correct horse battery staple\n');
  run('pkey', '-in', at('client-key.pem'), '-out', at('client-key-encrypted.pem'), '-aes256', '-passout', `file:${at('passphrase.txt')}`);
  return {
    dir,
    ca: at('ca.pem'),
    serverCert: at('server.pem'),
    serverKey: at('server-key.pem'),
    clientCert: at('client.pem'),
    clientKey: at('client-key.pem'),
    clientKeyEncrypted: at('client-key-encrypted.pem'),
    passphrase: at('passphrase.txt'),
    expiredCert: at('expired.pem'),
    expiredKey: at('expired-key.pem'),
    wrongCa: at('wrong-ca.pem'),
  };
}
