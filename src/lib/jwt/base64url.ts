/**
 * base64url (RFC 4648 §5) without padding, strict on input.
 * @module
 */
import { FhirgateError } from '../../errors.js';

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Encodes bytes or a UTF-8 string as unpadded base64url. */
export function encodeBase64url(data: Uint8Array | string): string {
  return Buffer.from(data as Uint8Array).toString('base64url');
}

/** Decodes unpadded base64url. Anything outside the alphabet, or an impossible length, is `ERR_JWT`. */
export function decodeBase64url(s: string): Buffer {
  if (typeof s !== 'string' || !BASE64URL.test(s) || s.length % 4 === 1) {
    throw new FhirgateError('ERR_JWT', 'malformed base64url');
  }
  return Buffer.from(s, 'base64url');
}
