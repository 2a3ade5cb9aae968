/**
 * The demo's write endpoints: create, update and delete a Patient at a named source, through the same
 * `AsyncFHIRGateway` as the handlers. They are custom routes (`app.post`, `app.put`, `app.delete`) with the
 * gateway injected, so they also show how an application adds its own endpoints.
 * @module
 */
import { AsyncFHIRGateway, getGateway, reply, type Reply, type ServiceAPI } from '../../src/index.js';

const TAGS = ['demo records'];

/**
 * Registers `POST /demo/:source/Patient`, `PUT /demo/:source/Patient/:id` and
 * `DELETE /demo/:source/Patient/:id` on `app`.
 *
 * @example
 * ```ts
 * registerRecordRoutes(app); // curl -X DELETE http://127.0.0.1:8000/demo/ehr-a/Patient/a-patient-5
 * ```
 */
export function registerRecordRoutes(app: ServiceAPI): void {
  const inject = { fhir: getGateway(AsyncFHIRGateway) };
  const created = { 201: { description: 'The created Patient', headers: { Location: 'where the new Patient is: /demo/<source>/Patient/<id>' } } };
  app.post('/demo/:source/Patient', { inject, tags: TAGS, summary: 'Create a Patient at a source (the server assigns the id); answers 201 with it', responses: created }, async (ctx) => {
    const problem = unknownSource(ctx.deps.fhir, ctx.params.source) ?? patientProblem(await ctx.json());
    if (problem !== undefined) return problem;
    const created = await ctx.deps.fhir.create({ ...(await ctx.json() as object), resourceType: 'Patient' }, ctx.params.source, { signal: ctx.signal });
    return reply(201, created, { location: `/demo/${ctx.params.source}/Patient/${created.id}` });
  });
  app.put('/demo/:source/Patient/:id', { inject, tags: TAGS, summary: 'Replace a Patient at a source (FHIR update: the whole resource)' }, async (ctx) => {
    const problem = unknownSource(ctx.deps.fhir, ctx.params.source) ?? patientProblem(await ctx.json());
    if (problem !== undefined) return problem;
    return ctx.deps.fhir.update({ ...(await ctx.json() as object), resourceType: 'Patient', id: ctx.params.id }, ctx.params.source, { signal: ctx.signal });
  });
  app.delete('/demo/:source/Patient/:id', { inject, tags: TAGS, summary: 'Delete a Patient at a source: {deleted: true}, or false when the server answered 404/410' }, async (ctx) => {
    const problem = unknownSource(ctx.deps.fhir, ctx.params.source);
    if (problem !== undefined) return problem;
    return { deleted: await ctx.deps.fhir.delete('Patient', ctx.params.id!, ctx.params.source, { signal: ctx.signal }) };
  });
}

/** A 404 naming the sources when `source` is not one of them. */
function unknownSource(gw: AsyncFHIRGateway, source: string | undefined): Reply | undefined {
  if (source !== undefined && gw.sourceNames.includes(source)) return undefined;
  return reply(404, { error: `unknown source; sources: ${gw.sourceNames.join(', ')}` });
}

/** A 400 when the body is not a Patient (an object whose resourceType, if any, is Patient). */
function patientProblem(body: unknown): Reply | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return reply(400, { error: 'the body must be a Patient resource (a JSON object)' });
  const { resourceType } = body as { resourceType?: unknown };
  return resourceType === undefined || resourceType === 'Patient' ? undefined : reply(400, { error: 'resourceType must be Patient' });
}
