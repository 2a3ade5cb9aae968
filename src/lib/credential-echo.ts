/**
 * Whether an upstream answer sends back a credential it was sent (a server that echoes the request's
 * `Authorization` header in an OperationOutcome, a narrative or an attachment), in whatever form: raw,
 * JSON-escaped (`\u0041`), percent-encoded (either case of hex, nested up to three times), as HTML/XML
 * character references (`&#65;`, `&#x41;`), hex, or base64 and base64url at any of the three byte
 * alignments (so a token inside a longer base64 text, `Bearer <token>` encoded whole, is found too).
 * What finds it is a search, not a redaction: an answer that echoes a credential is withheld whole, since
 * no rewriting can be sure to have removed every encoding of it.
 * @module
 */

/** The most rounds of percent-decoding tried (`%2541` is `%41` is `A`). */
const PERCENT_ROUNDS = 3;

/**
 * `text`, then `text` with each encoding undone in turn (JSON `\u` escapes, percent-encoding up to three
 * times nested, character references): the last is what it says once every encoding is undone. What an
 * upstream may hide a credential or an address in.
 */
export function decodedForms(text: string): string[] {
  const seen = [text];
  let view = text;
  if (view.includes('\\')) seen.push((view = view.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))).replace(/\\\//g, '/')));
  for (let round = 0; round < PERCENT_ROUNDS && /%[0-9a-fA-F]{2}/.test(view); round++) {
    seen.push((view = view.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))));
  }
  if (view.includes('&#')) {
    seen.push(view.replace(/&#(?:[xX]([0-9a-fA-F]{1,6})|(\d{1,7}));?/g, (m, hex: string | undefined, dec: string | undefined) => {
      const code = hex === undefined ? Number(dec) : parseInt(hex, 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }));
  }
  return seen;
}

/**
 * The base64 and base64url texts that `secret` becomes inside any longer base64 text: for each of the
 * three alignments, the characters that only the secret's own bytes decide.
 */
function base64Cores(secret: Buffer): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), secret]).toString('base64');
    const core = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + secret.length)) / 6));
    cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return cores;
}

/** Finds one credential in upstream texts, in every encoding above. Build one per credential. */
export class CredentialEcho {
  readonly #forms: readonly string[];
  readonly #cores: readonly string[];

  /** `secret` must be at least 8 characters: a shorter one would be found by chance. */
  constructor(secret: string) {
    if (secret.length < 8) throw new RangeError('CredentialEcho: a credential of fewer than 8 characters cannot be searched for');
    const bytes = Buffer.from(secret, 'utf8');
    const hex = bytes.toString('hex');
    this.#forms = [secret, hex, hex.toUpperCase()];
    this.#cores = base64Cores(bytes);
  }

  /** True when `text` holds the credential in any of the forms. */
  in(text: string): boolean {
    for (const view of decodedForms(text)) {
      for (const form of this.#forms) if (view.includes(form)) return true;
      // Base64 may be cut into lines, in the text or as JSON `\n` escapes.
      const packed = view.replace(/\s+|\\[nr]/g, '');
      for (const core of this.#cores) if (packed.includes(core)) return true;
    }
    return false;
  }
}
