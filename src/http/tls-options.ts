/**
 * The per-source `tls` option: a private CA to trust, a client certificate to present, checked once.
 * @module
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { FhirgateError } from '../errors.js';
import { checkObject, onlyKnownKeys } from '../lib/options.js';

/**
 * TLS settings of one source (and its token endpoint): PEM text or bytes, as `node:tls` takes them.
 * `ca` replaces the default trust for this source only (other sources keep Node's CA list); `cert` and
 * `key` are presented when the server asks for a client certificate (mutual TLS).
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * gw.addSource('ehr', 'fhir://ehr.hospital.local/r4/', {
 *   tls: { ca: readFileSync('ca.pem'), cert: readFileSync('client.pem'), key: readFileSync('client-key.pem') },
 * });
 * ```
 */
export interface TLSOptions {
  /** The CA certificate(s) that sign the server's certificate, PEM. Default: Node's CA list. */
  ca?: string | Uint8Array | ReadonlyArray<string | Uint8Array>;
  /** The client certificate chain, PEM (with `key`). */
  cert?: string | Uint8Array;
  /** The client certificate's private key, PEM (with `cert`). */
  key?: string | Uint8Array;
  /** The passphrase of an encrypted `key`. */
  passphrase?: string;
  /** The name sent as SNI and checked against the server's certificate. Default: the URL's host. */
  servername?: string;
}

/**
 * Checked TLS settings: what the agent of one source's origins is made with. One object per source:
 * the pool keys its agents by it, so two sources with different client certificates never share a socket.
 */
export interface CheckedTLS {
  readonly ca: string | Uint8Array | ReadonlyArray<string | Uint8Array> | undefined;
  readonly cert: string | Uint8Array | undefined;
  readonly key: string | Uint8Array | undefined;
  readonly passphrase: string | undefined;
  readonly servername: string | undefined;
}

const KEYS = ['ca', 'cert', 'key', 'passphrase', 'servername'] as const;

/**
 * Validates `tls` (named `name`) once: `undefined` stays `undefined`; an unknown key or a value of the
 * wrong type is a `TypeError`; `cert` without `key` (or the reverse), PEM that does not parse, a key that
 * does not fit its certificate or a wrong passphrase is `ERR_TLS_FILE` saying which, from `where` (the
 * files' paths when they came from files: never their contents).
 */
export function checkTLSOptions(tls: TLSOptions | undefined, name: string, where: Partial<Record<'ca' | 'cert' | 'key', string>> = {}): CheckedTLS | undefined {
  if (tls === undefined) return undefined;
  checkObject(tls, name);
  onlyKnownKeys(tls, KEYS, name);
  const { ca, cert, key, passphrase, servername } = tls;
  const pem = (v: unknown): boolean => typeof v === 'string' || v instanceof Uint8Array;
  if (ca !== undefined && !pem(ca) && !(Array.isArray(ca) && ca.every(pem))) throw new TypeError(`${name}.ca must be PEM text or bytes, or an array of them`);
  for (const [k, v] of [['cert', cert], ['key', key]] as const) if (v !== undefined && !pem(v)) throw new TypeError(`${name}.${k} must be PEM text or bytes`);
  for (const [k, v] of [['passphrase', passphrase], ['servername', servername]] as const) if (v !== undefined && typeof v !== 'string') throw new TypeError(`${name}.${k} must be a string`);
  if ((cert === undefined) !== (key === undefined)) throw new FhirgateError('ERR_TLS_FILE', `${name}: a client certificate needs both cert and key`);
  const checked: CheckedTLS = Object.freeze({ ca, cert, key, passphrase, servername });
  try {
    createSecureContext(checked as Parameters<typeof createSecureContext>[0]);
    // Node skips what is not a certificate in `ca` (a key given by mistake): the source would trust nothing of it.
    for (const one of ca === undefined ? [] : Array.isArray(ca) ? ca : [ca]) new X509Certificate(one as string | Uint8Array);
    // OpenSSL drops a key that does not fit the certificate without a word: the handshake would go without one.
    if (cert !== undefined && key !== undefined && !new X509Certificate(cert).checkPrivateKey(createPrivateKey({ key: Buffer.from(key), ...(passphrase === undefined ? {} : { passphrase }) }))) {
      throw Object.assign(new Error('key values mismatch'), { reason: 'key values mismatch' });
    }
  } catch (cause) {
    throw new FhirgateError('ERR_TLS_FILE', `${name}: ${unusable(cause, where)}`, { cause });
  }
  return checked;
}

/** What is wrong, naming the files by path (or by option), from OpenSSL's reason. */
function unusable(cause: unknown, where: Partial<Record<'ca' | 'cert' | 'key', string>>): string {
  const reason = String((cause as { reason?: unknown; code?: unknown } | null)?.reason ?? (cause as { code?: unknown } | null)?.code ?? 'unusable');
  const file = (k: 'ca' | 'cert' | 'key'): string => (where[k] === undefined ? k : `${k} (${where[k]})`);
  if (/bad decrypt|bad password|passphrase/i.test(reason)) return `${file('key')} cannot be decrypted with the passphrase given (${reason})`;
  if (/key values mismatch/i.test(reason)) return `${file('key')} is not the private key of ${file('cert')}`;
  const paths = Object.entries(where).map(([k, path]) => `${k}: ${path}`);
  return `the CA, certificate or key cannot be used: ${reason}${paths.length === 0 ? '' : ` (${paths.join(', ')})`}`;
}
