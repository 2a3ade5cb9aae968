/**
 * FHIR Bulk Data export (Bulk Data Access IG 2.0.0) for the gateways.
 * @module
 */
export { bulkExport } from './export.js';
export { bulkExportAll } from './export-all.js';
export type { BulkExportAllOptions } from './export-all.js';
export { BULK_DEFAULTS, checkBulkOptions } from './options.js';
export type { BulkExportBaseOptions, BulkExportOptions, BulkLevel, BulkSettings } from './options.js';
export type { BulkHost, BulkItem } from './types.js';
