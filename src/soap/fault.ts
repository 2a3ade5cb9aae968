/**
 * The error that becomes a `soap:Fault`.
 * @module
 */
import { FhirgateError, isFhirgateError } from '../errors.js';

/** The SOAP 1.1 fault codes fhirgate sends (§4.4.1), without the envelope prefix. */
export type SOAPFaultCode = 'VersionMismatch' | 'MustUnderstand' | 'Client' | 'Server';

/** Options of {@link SOAPFault}. */
export interface SOAPFaultOptions {
  /** A short machine-readable kind, sent as `detail/ClientFault/Type` (`InvalidXML`, `MissingParameter`, ...). */
  type: string;
  /** The HTTP status to answer with. Default 500 (SOAP 1.1 §6.2). */
  status?: number;
  cause?: unknown;
}

/**
 * A SOAP fault: `Client`, `VersionMismatch` and `MustUnderstand` faults carry `ERR_SOAP_CLIENT`, `Server` faults
 * `ERR_SOAP_SERVER`. The message is the `faultstring` and is sent to the caller, so it never holds a
 * stack trace or a secret.
 *
 * @example
 * ```ts
 * throw new SOAPFault('Client', 'Missing SOAP Body', { type: 'MissingBody' });
 * ```
 */
export class SOAPFault extends FhirgateError {
  /** The fault code, without prefix. */
  readonly faultCode: SOAPFaultCode;
  /** The short kind sent in the fault detail. */
  readonly type: string;
  declare readonly status: number;

  constructor(faultCode: SOAPFaultCode, faultString: string, options: SOAPFaultOptions) {
    super(faultCode === 'Server' ? 'ERR_SOAP_SERVER' : 'ERR_SOAP_CLIENT', faultString, {
      status: options.status ?? 500,
      cause: options.cause,
    });
    this.faultCode = faultCode;
    this.type = options.type;
  }
}

/** Shortens text taken from a request before it goes into a `faultstring` (at most `max` characters). */
export function clip(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A `Client` fault (HTTP 500 unless `status` is given). */
export function clientFault(message: string, type: string, status?: number): SOAPFault {
  return new SOAPFault('Client', message, { type, status });
}

/**
 * Turns what a request failed with into the fault to answer: a {@link SOAPFault} as is; a too-large body
 * (`ERR_BODY_TOO_LARGE`) into a `Client` fault with status 413; another `ERR_SOAP_CLIENT` (from the XML
 * parser or the base64 decoder) into a `Client` fault with its message; anything else into a generic
 * `Server` fault whose `faultstring` reveals nothing.
 */
export function toSOAPFault(err: unknown): SOAPFault {
  if (err instanceof SOAPFault) return err;
  if (isFhirgateError(err, 'ERR_BODY_TOO_LARGE')) {
    return clientFault('Request body too large', 'TooLarge', 413);
  }
  if (isFhirgateError(err, 'ERR_SOAP_CLIENT')) {
    const type = err.message.startsWith('Invalid XML') ? 'InvalidXML' : 'InvalidParameter';
    return new SOAPFault('Client', err.message, { type, cause: err });
  }
  return new SOAPFault('Server', 'Internal server error', { type: 'Internal', cause: err });
}
