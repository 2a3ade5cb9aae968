/**
 * What `npm start` prints once the demo listens: the docs page first, the other URLs, the sources (never
 * a secret) and ready-to-paste `curl` commands with real ids.
 * @module
 */
import type { Demo } from './start-demo.js';
import { toCurl } from './requests.js';

/**
 * The banner text of a running demo.
 *
 * @example
 * ```ts
 * console.log(banner(await startDemo({ port: 8000 })));
 * ```
 */
export function banner(demo: Demo): string {
  const o = demo.origin;
  const urls: [string, string][] = [
    ['Docs (try every endpoint here)', `${o}/docs`],
    ['OpenAPI document', `${o}/openapi.json`],
    ['Health', `${o}/health`],
    ['Gateway and services status', `${o}/gateway/status`],
    ['FHIR CapabilityStatement', `${o}/fhir/metadata`],
    ['CDS Hooks discovery', `${o}/cds/cds-services`],
    ['NoteReader WSDL', `${o}/notereader/?wsdl`],
  ];
  const width = Math.max(...urls.map(([label]) => label.length)) + 1;
  return [
    `fhirgate demo is running on ${o}`,
    '',
    ...urls.map(([label, url]) => `  ${`${label}:`.padEnd(width)} ${url}`),
    '',
    'FHIR sources (embedded sandboxes, in memory):',
    ...demo.sources.list.flatMap((s) => [
      `  ${s.name}  ${s.fhirBase}`,
      `         auth: ${s.auth}`,
      `         patients: ${s.patientIds.join(', ')}`,
    ]),
    `  ehr-b's private key: ${demo.sources.keyPath} (mode 0600, removed on exit)`,
    '',
    'Try it (copy and paste):',
    ...demo.requests.flatMap((r) => ['', `  # ${r.title}`, `  ${toCurl(o, r)}`]),
    '',
    'Write through the gateway (create, update, delete), in this order:',
    ...demo.writes.flatMap((r) => ['', `  # ${r.title}`, `  ${toCurl(o, r)}`]),
    '',
    'Log below: JSON lines on stdout, one per request (msg "request") and one per event (msg "event"),',
    'LOG_LEVEL=debug|info|warn|error picks how much. Ctrl-C stops.',
    '',
  ].join('\n');
}
