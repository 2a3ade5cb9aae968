/**
 * The demo's CDS Hooks service: `patient-view` service `patient-overview`. When a chart opens, it finds
 * the patient at whichever source knows them, gathers their active problems from every source through
 * the gateway, and answers one card (a warning from three problems up). A source that fails is named
 * in the card, not hidden.
 * @module
 */
import { CDSHooksService, type CDSCard, type CDSResponse } from '../../src/cds/index.js';
import { aggregateSources, isFhirgateError, SOURCE_TAG_SYSTEM } from '../../src/index.js';
import type { AsyncFHIRGateway, BundleEntry, Condition, OperationOutcome, Patient } from '../../src/index.js';

/**
 * The id of the demo's CDS service (`POST /cds/cds-services/patient-overview`).
 *
 * @example
 * ```ts
 * await fetch(`${origin}/cds/cds-services/${CDS_SERVICE_ID}`, { method: 'POST', body });
 * ```
 */
export const CDS_SERVICE_ID = 'patient-overview';

/** The card's `source`: who says so. */
const SOURCE = Object.freeze({ label: 'fhirgate demo' });

/**
 * A CDS Hooks service whose `patient-view` handler reads from `gw`.
 *
 * @example
 * ```ts
 * app.registerService(createCdsService(gw), { path: '/cds' });
 * ```
 */
export function createCdsService(gw: AsyncFHIRGateway): CDSHooksService {
  const cds = new CDSHooksService();
  cds.hook('patient-view', {
    id: CDS_SERVICE_ID,
    title: 'Patient overview',
    description: 'Lists the active problems of the patient whose chart is opened, gathered from every connected EHR',
  }, async (request, context): Promise<CDSResponse> => {
    const patientId = String(request.context.patientId);
    const signal = context.signal;
    const sources = gw.sourceNames;
    const [reads, problems] = await Promise.all([
      Promise.allSettled(sources.map((source) => gw.read('Patient', patientId, source, { signal }))),
      aggregateSources(gw, { resourceType: 'Condition', params: { patient: patientId, 'clinical-status': 'active' }, sources, timeoutSeconds: 5, signal }),
    ]);
    const patient = reads.find((r): r is PromiseFulfilledResult<Patient> => r.status === 'fulfilled')?.value;
    if (patient !== undefined) return { cards: [card(patientId, patient, problems.entry ?? [])] };
    // Not found anywhere, or not found where it could be asked: say which.
    const unreadable = sources.filter((_, i) => reads[i]?.status === 'rejected' && !isNotFound(reads[i].reason));
    return {
      cards: [unreadable.length === 0
        ? { summary: `No connected EHR knows Patient/${patientId}`, indicator: 'info', source: { ...SOURCE } }
        : { summary: `Patient/${patientId} could not be looked up at ${unreadable.join(', ')}`, indicator: 'warning', source: { ...SOURCE } }],
    };
  });
  return cds;
}

function isNotFound(reason: unknown): boolean {
  return isFhirgateError(reason, 'ERR_FHIR_HTTP') && reason.status === 404;
}

function card(patientId: string, patient: Patient, entries: readonly BundleEntry[]): CDSCard {
  const name = patient.name?.[0];
  const who = [...(name?.given ?? []), name?.family ?? ''].join(' ').trim() || `Patient/${patientId}`;
  const matches = entries.filter((e) => e.search?.mode !== 'outcome');
  const failures = entries.filter((e) => e.search?.mode === 'outcome');
  const lines = [
    ...matches.map((e) => {
      const c = e.resource as Condition;
      return `- ${c.code?.text ?? c.code?.coding?.[0]?.display ?? 'uncoded problem'} (${sourceOf(e)})`;
    }),
    ...failures.map((e) => `- *${(e.resource as OperationOutcome).issue[0]?.diagnostics ?? `${sourceOf(e)} failed`}*`),
  ];
  return {
    summary: `${who}: ${matches.length} active problem(s) at ${new Set(matches.map(sourceOf)).size} source(s)`,
    detail: lines.join('\n'),
    indicator: matches.length >= 3 ? 'warning' : 'info',
    source: { ...SOURCE },
  };
}

function sourceOf(entry: BundleEntry): string {
  return entry.resource?.meta?.tag?.find((t) => t.system === SOURCE_TAG_SYSTEM)?.code ?? 'unknown source';
}
