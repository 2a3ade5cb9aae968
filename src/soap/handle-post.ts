/**
 * Answering one SOAP POST: checks, reading, calling the handler, the event, the answer.
 * @module
 */
import { isFhirgateError } from '../errors.js';
import { emitSafely } from '../events/emit-safely.js';
import type { EventDispatcher } from '../events/types.js';
import { logUserCodeFailure } from '../lib/user-code-failure.js';
import type { RouteReply, RouteRequest } from '../mount/index.js';
import { DocumentReader } from './document-reader.js';
import { SOAPFault, clientFault, clip, toSOAPFault } from './fault.js';
import type { ResolvedOptions } from './options.js';
import { readEnvelopeParts } from './read-envelope.js';
import type { SOAPRequestParts } from './read-envelope.js';
import type { NoteReaderHandler, NoteReaderRequest, NoteReaderResult } from './types.js';
import { decodeUTF8 } from './utf8-chunks.js';
import { writeFault, writeResponseBytes } from './write-envelope.js';

/** What the POST route needs from its service, looked up per request. */
export interface PostContext {
  readonly options: ResolvedOptions;
  readonly handlers: ReadonlyMap<string, NoteReaderHandler>;
  readonly dispatcher: EventDispatcher | null;
}

const XML_HEADERS = Object.freeze({ 'content-type': 'text/xml; charset=utf-8' });
const REQUIRED = ['SessionID', 'WorkType', 'OrganizationID', 'Document'] as const;
/** The `Document` is decoded while it is read. */
const DOCUMENT_READER: ReadonlyMap<string, () => DocumentReader> = new Map([['Document', () => new DocumentReader()]]);

function checkContentType(value: string | undefined): void {
  const [type = '', ...params] = (value ?? '').split(';').map((p) => p.trim().toLowerCase());
  const charset = params.find((p) => p.startsWith('charset='))?.slice(8).replace(/^"|"$/g, '');
  if (type !== 'text/xml' || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    const shown = value === undefined ? 'none' : JSON.stringify(clip(value, 100));
    throw clientFault(`Unsupported Content-Type: ${shown}; send text/xml; charset=utf-8`, 'UnsupportedMediaType', 415);
  }
}

function checkAction(header: string | undefined, operation: string): void {
  if (header === undefined) return;
  const action = header.trim().replace(/^"(.*)"$/, '$1');
  const separator = action.charAt(action.length - operation.length - 1);
  if (action === '' || action === operation || (action.endsWith(operation) && '/#:'.includes(separator) && separator !== '')) return;
  throw clientFault(`SOAPAction ${JSON.stringify(clip(action))} does not name the operation ${operation}`, 'ActionMismatch');
}

/** The handler's request: the parameters, the `Document` decoded from base64 unless it was sent as XML. */
function toRequest(message: SOAPRequestParts<DocumentReader>): NoteReaderRequest {
  const value = (name: string): string => message.params.get(name)?.join('').trim() ?? '';
  const reader = message.streamed.get('Document');
  const missing = REQUIRED.filter((name) => (name === 'Document' && reader ? reader.blank : value(name) === ''));
  if (missing.length > 0) throw clientFault(`Missing required parameter(s): ${missing.join(', ')}`, 'MissingParameter');
  let document = value('Document');
  if (reader) {
    try {
      document = decodeUTF8(reader.bytes());
    } catch {
      throw clientFault('Invalid parameter: Document is not base64 of UTF-8 text', 'InvalidParameter');
    }
  }
  return { operation: message.operation, document, sessionId: value('SessionID'), workType: value('WorkType'), organizationId: value('OrganizationID') };
}

function toResult(value: unknown): NoteReaderResult {
  if (typeof value === 'string') return { document: value };
  const r = value as NoteReaderResult | null;
  if (typeof r === 'object' && r !== null && ['string', 'undefined'].includes(typeof r.document)
    && (r.error === undefined || r.error === null || typeof r.error === 'string')) {
    return { document: r.document, error: r.error };
  }
  throw new TypeError('the handler returned neither a string nor { document, error }');
}

async function answer(req: RouteRequest, ctx: PostContext): Promise<RouteReply> {
  const { options } = ctx;
  checkContentType(req.headers['content-type']);
  const message = await readEnvelopeParts(req.chunks(options.bodyLimit), options, options.understoodHeaders, DOCUMENT_READER);
  const handler = message.namespace === options.namespace ? ctx.handlers.get(message.operation) : undefined;
  if (!handler) {
    const name = message.namespace === options.namespace ? message.operation : `{${message.namespace}}${message.operation}`;
    throw clientFault(`Unknown operation: ${clip(name)}`, 'UnknownOperation');
  }
  const action = req.headers['soapaction'];
  checkAction(Array.isArray(action) ? action[0] : action, message.operation);
  const request = toRequest(message);
  let result: NoteReaderResult | undefined;
  try {
    result = toResult(await handler(request, { requestId: req.requestId, log: req.log, signal: req.signal }));
  } catch (err) {
    logUserCodeFailure(req.log, 'error', 'NoteReader handler failed', {
      operation: request.operation,
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    }, err);
    throw new SOAPFault('Server', 'Internal server error', { type: 'Internal', cause: err });
  } finally {
    emitSafely(ctx.dispatcher, `notereader.${request.operation.toLowerCase()}`, {
      session_id: request.sessionId,
      work_type: request.workType,
      organization_id: request.organizationId,
      has_error: result === undefined || (typeof result.error === 'string' && result.error !== ''),
      document_bytes: Buffer.byteLength(request.document),
    });
  }
  return { status: 200, headers: { ...XML_HEADERS }, body: writeResponseBytes(options.namespace, request.operation, result) };
}

/**
 * Answers a SOAP POST. Every failure becomes a `soap:Fault` answer: HTTP 500 (SOAP 1.1 §6.2), or 413
 * for a body over `bodyLimit` and 415 for a `Content-Type` other than `text/xml`.
 */
export async function handlePost(req: RouteRequest, ctx: PostContext): Promise<RouteReply> {
  try {
    return await answer(req, ctx);
  } catch (err) {
    // The client went away mid-body: nobody to answer; the host logs it once, as a client event.
    if (isFhirgateError(err, 'ERR_ABORTED')) throw err;
    const fault = toSOAPFault(err);
    if (fault.faultCode === 'Server' && !(err instanceof SOAPFault)) {
      req.log.error('NoteReader request failed', { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
    }
    return { status: fault.status, headers: { ...XML_HEADERS }, body: writeFault(ctx.options.namespace, fault) };
  }
}
