/**
 * Reading a SOAP 1.1 request envelope from a byte stream with `saxes`, without building a tree.
 * @module
 */
import { EmbeddedXMLWriter } from './embedded-xml.js';
import { SOAPFault, clientFault, clip } from './fault.js';
import { createSecureParser } from './secure-parser.js';
import type { XMLLimits, XMLTag } from './secure-parser.js';
import { Utf8Chunks } from './utf8-chunks.js';
import { SOAP_ENVELOPE_NS } from './write-envelope.js';

/** The operation a SOAP request calls and its parameters. */
export interface SOAPRequestMessage {
  /** The local name of the first element in `soap:Body`. */
  readonly operation: string;
  /** The namespace URI of that element (`''` when it has none). */
  readonly namespace: string;
  /** The text of each child of the operation element, by local name (the first one wins). */
  readonly params: ReadonlyMap<string, string>;
  /** The names of the parameters whose content was XML elements; their value is that XML, serialized. */
  readonly xmlParams: ReadonlySet<string>;
}

/** What takes a parameter's text while it is read, instead of the text being kept. */
export interface TextSink {
  write(text: string): void;
}

/** {@link SOAPRequestMessage} with each parameter's text in pieces, or given to a sink as it was read. */
export interface SOAPRequestParts<S extends TextSink = TextSink> extends Omit<SOAPRequestMessage, 'params'> {
  /** The text of each parameter not given to a sink, in pieces whose concatenation is its value. */
  readonly params: ReadonlyMap<string, readonly string[]>;
  /** The sink of each parameter whose text went to one (a parameter whose content was XML keeps none). */
  readonly streamed: ReadonlyMap<string, S>;
}

const UTF8_NAMES = new Set(['utf-8', 'utf8', 'us-ascii', 'ascii']);
/**
 * Characters parsed between two turns of the event loop. Chunks a socket already buffered come through
 * `for await` as microtasks, so without a turn a whole body was parsed in one block (a 7.9 MiB one held
 * `/health` for seconds); a turn costs tens of microseconds, and 128 Ki characters of the costliest XML
 * accepted take tens of milliseconds.
 */
const TURN_EVERY = 128 * 1024;
/** The `actor` (SOAP 1.1 §4.2.2) that means "the first SOAP application to process the message". */
const NEXT_ACTOR = 'http://schemas.xmlsoap.org/soap/actor/next';

/**
 * SOAP 1.1 §4.2.3: a header entry for this node (no `actor`, or the "next" actor) with
 * `mustUnderstand="1"` cannot be ignored: unless the application said it understands it, a
 * `MustUnderstand` fault.
 */
function checkHeaderEntry(tag: XMLTag, understood: ReadonlySet<string>): void {
  const name = `{${tag.uri}}${tag.local}`;
  if (understood.has(name)) return;
  const attribute = (local: string): string | undefined =>
    Object.values(tag.attributes).find((a) => a.uri === SOAP_ENVELOPE_NS && a.local === local)?.value;
  const actor = attribute('actor');
  const mustUnderstand = attribute('mustUnderstand')?.trim();
  // The SOAP 1.1 schema allows "0" and "1"; "true" (SOAP 1.2's spelling) is taken to mean "1", failing closed.
  if ((mustUnderstand === '1' || mustUnderstand === 'true') && (actor === undefined || actor === NEXT_ACTOR)) {
    throw new SOAPFault('MustUnderstand', `Header ${clip(name)} is marked mustUnderstand and is not understood`, { type: 'MustUnderstand' });
  }
}

/** Collects the parts of the envelope while the parser walks it. */
class EnvelopeCollector<S extends TextSink> {
  readonly #understood: ReadonlySet<string>;
  readonly #sinks: ReadonlyMap<string, () => S>;
  inBody = false;
  inHeader = false;
  sawBody = false;
  inOperation = false;
  operation: XMLTag | undefined;
  readonly params = new Map<string, readonly string[]>();
  readonly xmlParams = new Set<string>();
  readonly streamed = new Map<string, S>();
  #param: { name: string; text: string[]; sink: S | undefined; xml: EmbeddedXMLWriter | undefined } | undefined;

  constructor(understood: ReadonlySet<string>, sinks: ReadonlyMap<string, () => S>) {
    this.#understood = understood;
    this.#sinks = sinks;
  }

  open(tag: XMLTag, depth: number): void {
    if (depth === 1) {
      if (tag.local !== 'Envelope') throw clientFault('Invalid SOAP message: the root element is not an Envelope', 'InvalidEnvelope');
      if (tag.uri !== SOAP_ENVELOPE_NS) throw new SOAPFault('VersionMismatch', `Unsupported envelope namespace: ${clip(tag.uri)}`, { type: 'VersionMismatch' });
    } else if (depth === 2 && tag.uri === SOAP_ENVELOPE_NS && tag.local === 'Body' && !this.sawBody) {
      this.inBody = this.sawBody = true;
    } else if (depth === 2 && tag.uri === SOAP_ENVELOPE_NS && tag.local === 'Header') {
      this.inHeader = true;
    } else if (depth === 3 && this.inHeader) {
      checkHeaderEntry(tag, this.#understood);
    } else if (depth === 3 && this.inBody && this.operation === undefined) {
      this.operation = tag;
      this.inOperation = true;
    } else if (depth === 4 && this.inOperation && !this.params.has(tag.local) && !this.streamed.has(tag.local)) {
      this.#param = { name: tag.local, text: [], sink: this.#sinks.get(tag.local)?.(), xml: undefined };
    } else if (depth > 4 && this.#param) {
      this.#param.xml ??= new EmbeddedXMLWriter();
      this.#param.xml.open(tag);
    }
  }

  close(depth: number): void {
    if (depth === 2) this.inBody = this.inHeader = false;
    else if (depth === 3) this.inOperation = false;
    else if (depth > 4 && this.#param) this.#param.xml!.close();
    else if (depth === 4 && this.#param) {
      const { name, text, sink, xml } = this.#param;
      if (xml) this.xmlParams.add(name);
      if (sink && !xml) this.streamed.set(name, sink);
      else this.params.set(name, xml ? [xml.toString()] : text);
      this.#param = undefined;
    }
  }

  text(text: string): void {
    if (!this.#param) return;
    if (this.#param.xml) this.#param.xml.text(text);
    else if (this.#param.sink) this.#param.sink.write(text);
    else this.#param.text.push(text);
  }
}

/**
 * Reads a request envelope: any prefixes; Header entries ignored unless one for this node says
 * `mustUnderstand="1"` and is not among `understoodHeaders` (`{namespace}localName`): a `MustUnderstand`
 * fault; the first child of `Body` is the
 * operation; its children are matched by local name. The bytes must be UTF-8. Rejects with a
 * {@link SOAPFault} (`Client`, or `VersionMismatch` for another envelope namespace), or with the
 * error the chunk source throws (such as `ERR_BODY_TOO_LARGE`).
 */
export async function readEnvelope(
  chunks: AsyncIterable<Uint8Array>,
  limits: XMLLimits,
  understoodHeaders: ReadonlySet<string> = new Set(),
): Promise<SOAPRequestMessage> {
  const { params, operation, namespace, xmlParams } = await readEnvelopeParts(chunks, limits, understoodHeaders);
  return { operation, namespace, xmlParams, params: new Map([...params].map(([name, parts]) => [name, parts.join('')])) };
}

/**
 * {@link readEnvelope} leaving each parameter's text in the pieces it came in, or giving the text of the
 * parameters named in `sinks` to a sink made for each as it is read: a megabyte of base64 is decoded
 * while it arrives, and never kept as text. A sink's parameter whose content turns out to be XML elements
 * is kept as XML, its sink dropped.
 */
export async function readEnvelopeParts<S extends TextSink>(
  chunks: AsyncIterable<Uint8Array>,
  limits: XMLLimits,
  understoodHeaders: ReadonlySet<string>,
  sinks: ReadonlyMap<string, () => S> = new Map(),
): Promise<SOAPRequestParts<S>> {
  const collector = new EnvelopeCollector(understoodHeaders, sinks);
  const parser = createSecureParser(limits, 'ERR_SOAP_CLIENT', {
    open: (tag, depth) => collector.open(tag, depth),
    close: (_tag, depth) => collector.close(depth),
    text: (text) => collector.text(text),
    decl: (decl) => {
      if (decl.encoding !== undefined && !UTF8_NAMES.has(decl.encoding.toLowerCase())) {
        throw clientFault(`Invalid XML: unsupported encoding ${clip(decl.encoding)}; send UTF-8`, 'InvalidXML');
      }
    },
  });
  const utf8 = new Utf8Chunks();
  const notUtf8 = (err: unknown) => new SOAPFault('Client', 'Invalid XML: the body is not valid UTF-8', { type: 'InvalidXML', cause: err });
  let sinceTurn = 0;
  for await (const chunk of chunks) {
    let text: string;
    try {
      text = utf8.decode(chunk);
    } catch (err) {
      throw notUtf8(err);
    }
    parser.write(text);
    sinceTurn += text.length;
    if (sinceTurn >= TURN_EVERY) {
      sinceTurn = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  try {
    utf8.end();
  } catch (err) {
    throw notUtf8(err);
  }
  parser.close();
  if (!collector.sawBody) throw clientFault('Missing SOAP Body', 'MissingBody');
  const op = collector.operation;
  if (!op) throw clientFault('Missing operation: the SOAP Body is empty', 'MissingOperation');
  return { operation: op.local, namespace: op.uri, params: collector.params, xmlParams: collector.xmlParams, streamed: collector.streamed };
}
