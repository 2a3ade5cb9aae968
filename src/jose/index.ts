export { encodeBase64url, decodeBase64url } from './base64url.js';
export { readKey, algorithmFor, toPublicJwk, jwkThumbprint } from './keys.js';
export { signJwt } from './sign-jwt.js';
export { decodeJwt, verifyJwt, type VerifyJwtOptions, type DecodedJwt } from './verify-jwt.js';
export type { JwtHeader, JwtClaims } from './types.js';
