// Type-level and runtime checks of the old names kept for one release: `tsc --noEmit` rejects this
// file if an old type name is not exactly its new one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CORSOptions, CorsOptions } from '../src/index.js';
import { FHIRHTTPError, FHIRHttpError, type FHIRHTTPErrorOptions, type FHIRHttpErrorOptions } from '../src/errors.js';
import type { FHIRAuthorization, FhirAuthorization, JSONObject, JsonObject } from '../src/cds/index.js';
import { SOAPFault, SoapFault, type CDADocument, type CdaDocument, type XMLLimits, type XmlLimits } from '../src/soap/index.js';

type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;

const sameTypes: [
  Equal<CorsOptions, CORSOptions>,
  Equal<FHIRHttpErrorOptions, FHIRHTTPErrorOptions>,
  Equal<FhirAuthorization, FHIRAuthorization>,
  Equal<JsonObject, JSONObject>,
  Equal<CdaDocument, CDADocument>,
  Equal<XmlLimits, XMLLimits>,
] = [true, true, true, true, true, true];

test('an error made with an old class name is an instance of the new one, and the other way round', () => {
  assert.deepEqual(sameTypes, [true, true, true, true, true, true]);
  const fault = new SoapFault('Client', 'bad envelope', { type: 'InvalidXML' });
  assert.ok(fault instanceof SOAPFault);
  const http = new FHIRHTTPError('read Patient/1 failed: 404', { status: 404 });
  assert.ok(http instanceof FHIRHttpError);
  assert.equal(http.code, 'ERR_FHIR_HTTP');
});
