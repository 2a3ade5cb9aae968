/**
 * Validating and completing the options of `NoteReaderService`.
 * @module
 */
import type { EventDispatcher } from '../events/types.js';
import { checkPublicUrl } from '../lib/public-url.js';
import type { NoteReaderServiceOptions } from './types.js';
import { keysOf, numberOption, onlyKnownKeys } from '../lib/options.js';
import { ATTRIBUTE_LIMITS, type XMLLimits } from './secure-parser.js';

/** The defaults of every NoteReader option. */
export const DEFAULTS = Object.freeze({
  namespace: 'urn:epic-com:Common.2013.Services',
  serviceName: 'CDSServices',
  portName: 'ICDSServices',
  bodyLimit: 10 * 1024 * 1024,
  maxDepth: 256,
  maxElements: 200_000,
  ...ATTRIBUTE_LIMITS,
});

/** The keys of {@link NoteReaderServiceOptions}; any other is refused with the nearest of these. */
export const NOTEREADER_OPTION_KEYS = keysOf<NoteReaderServiceOptions>({
  namespace: true, serviceName: true, portName: true, bodyLimit: true, maxDepth: true, maxElements: true, maxAttributes: true, maxNamespaceDeclarations: true,
  maxAttributeLength: true, understoodHeaders: true, dispatcher: true, publicUrl: true,
});

/** The keys of {@link XMLLimits} (`readCDA`'s and `enrichCDA`'s limits); any other is refused with the nearest of these. */
export const XML_LIMIT_KEYS = keysOf<XMLLimits>({ maxDepth: true, maxElements: true, maxAttributes: true, maxNamespaceDeclarations: true, maxAttributeLength: true });

/** The options once checked, defaults filled in. */
export interface ResolvedOptions {
  readonly namespace: string;
  readonly serviceName: string;
  readonly portName: string;
  readonly bodyLimit: number;
  readonly maxDepth: number;
  readonly maxElements: number;
  readonly maxAttributes: number;
  readonly maxNamespaceDeclarations: number;
  readonly maxAttributeLength: number;
  /** `{namespace}localName` of the header entries the application understands. */
  readonly understoodHeaders: ReadonlySet<string>;
  readonly dispatcher: EventDispatcher | undefined;
  /** The WSDL's `soap:address`, when configured. */
  readonly publicUrl: string | undefined;
}

/** `{namespace}localName`, the namespace possibly empty (`{}Token`). */
const CLARK_NAME = /^\{[^{}]*\}[A-Za-z_][A-Za-z0-9_.-]*$/;

function headerNames(value: unknown): ReadonlySet<string> {
  if (value === undefined) return new Set();
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !CLARK_NAME.test(v))) {
    throw new TypeError('options.understoodHeaders must be an array of "{namespace}localName" strings');
  }
  return new Set(value as string[]);
}

const NC_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * Throws a `TypeError` naming `option` unless `value` is an XML name without a colon (an NCName in
 * ASCII), as WSDL names and operation names must be.
 */
export function checkNCName(value: unknown, option: string): string {
  if (typeof value !== 'string' || !NC_NAME.test(value)) {
    throw new TypeError(`${option} must be an XML name such as "ProcessDocument"`);
  }
  return value;
}

/** Checks the options once and fills in {@link DEFAULTS}. Misuse throws `TypeError`/`RangeError`. */
export function resolveOptions(options: NoteReaderServiceOptions = {}): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  onlyKnownKeys(options, NOTEREADER_OPTION_KEYS, 'options');
  const { namespace = DEFAULTS.namespace, dispatcher } = options;
  if (typeof namespace !== 'string' || namespace === '') throw new TypeError('options.namespace must be a non-empty string');
  if (dispatcher !== undefined && (typeof dispatcher !== 'object' || dispatcher === null || typeof dispatcher.emit !== 'function')) {
    throw new TypeError('options.dispatcher must be an EventDispatcher');
  }
  return Object.freeze({
    namespace,
    serviceName: checkNCName(options.serviceName ?? DEFAULTS.serviceName, 'options.serviceName'),
    portName: checkNCName(options.portName ?? DEFAULTS.portName, 'options.portName'),
    bodyLimit: numberOption(options.bodyLimit, 'options.bodyLimit', DEFAULTS.bodyLimit, { integer: true, min: 1 }),
    maxDepth: numberOption(options.maxDepth, 'options.maxDepth', DEFAULTS.maxDepth, { integer: true, min: 1 }),
    maxElements: numberOption(options.maxElements, 'options.maxElements', DEFAULTS.maxElements, { integer: true, min: 1 }),
    maxAttributes: numberOption(options.maxAttributes, 'options.maxAttributes', DEFAULTS.maxAttributes, { integer: true, min: 1 }),
    maxNamespaceDeclarations: numberOption(options.maxNamespaceDeclarations, 'options.maxNamespaceDeclarations', DEFAULTS.maxNamespaceDeclarations, { integer: true, min: 1 }),
    maxAttributeLength: numberOption(options.maxAttributeLength, 'options.maxAttributeLength', DEFAULTS.maxAttributeLength, { integer: true, min: 1 }),
    understoodHeaders: headerNames(options.understoodHeaders),
    dispatcher,
    publicUrl: checkPublicUrl(options.publicUrl, 'options.publicUrl'),
  });
}
