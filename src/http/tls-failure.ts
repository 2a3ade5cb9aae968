/**
 * Which TLS failures an exchange reports as `ERR_TLS`, and how they read.
 * @module
 */

/** OpenSSL's verification results for a server certificate that is not trusted (Node puts them in `code`). */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'INVALID_CA',
]);

/**
 * A sentence for a TLS failure (the code in brackets), or `undefined` for any other error: an untrusted
 * or expired server certificate, one that does not name the host, or the server's alert when it refuses
 * (or misses) the client certificate.
 */
export function tlsFailure(cause: unknown): string | undefined {
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (UNTRUSTED.has(code)) return `the server's certificate is not signed by a trusted CA (${code}): give the source's CA (ca_path, or tls.ca)`;
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return `the server's certificate is not valid now (${code})`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') return `the server's certificate does not name this host (${code})`;
  if (/^ERR_SSL_.*ALERT_CERTIFICATE_REQUIRED$/.test(code)) return `the server asks for a client certificate and none was given (${code}): give cert_path and key_path, or tls.cert and tls.key`;
  if (/^ERR_SSL_.*ALERT_(BAD_CERTIFICATE|CERTIFICATE_EXPIRED|CERTIFICATE_REVOKED|CERTIFICATE_UNKNOWN|UNKNOWN_CA|UNSUPPORTED_CERTIFICATE|ACCESS_DENIED)$/.test(code)) {
    return `the server refused the client certificate (${code})`;
  }
  return code.startsWith('ERR_SSL_') ? `the TLS handshake failed (${code})` : undefined;
}
