/**
 * The config file's settings, as `--help` prints them.
 * @module
 */

/** One line per setting of `fhirgate.json`; kept next to the validation so both change together. */
export const CONFIG_HELP: readonly string[] = Object.freeze([
  'Config file (JSON; any string but title and description may hold ${ENV_VAR} references, percent-encoded after the ? of',
  'a fhir:// string; $${ for a literal ${; unknown settings are errors):',
  '  sources            {"<name>": "fhir://…"}: the FHIR servers, first one the default',
  '  gateway.path       path prefix of the gateway (default /fhir)',
  '  gateway.fhirVersion  what /metadata reports (default 4.0.1)',
  '  gateway.timeoutSeconds  seconds per upstream request (default 30)',
  '  gateway.module     module whose default export (gw, { gateway }) registers transform/aggregate handlers',
  '  cds.module, cds.path            CDS Hooks service: module whose default export (cds, { gateway }) adds hooks; path default /cds',
  '  cds.fhirServers    ["https://ehr.example.org/fhir", …]: the only FHIR servers CDS prefetch may read (default: public addresses only)',
  '  notereader.module, notereader.path  NoteReader SOAP service: module whose default export (nr, { gateway }) sets methods; path default /notereader',
  '  apiKeys            ["key", …]: required as Authorization: Bearer <key> or X-API-Key (default: FHIRGATE_API_KEYS)',
  '  cors               {"origins": ["https://…"] or "*", "credentials": false}',
  '  host, port         where to listen (default 127.0.0.1, 8000)',
  '  publicUrl          the URL callers reach this host at (WSDL soap:address, /fhir/metadata url, CDS aud); --public-url wins',
  '  trustProxy         true: take the public URL from Host / X-Forwarded-Host / X-Forwarded-Proto, for allowedHosts only (default false)',
  '  allowedHosts       ["fhir.example.org", "fhir.example.org:8443"]: the hosts a trusted proxy may name',
  '  title, description shown at / and /docs, without an API key (never ${VAR}-expanded)',
  '  logLevel           debug, info, warn or error (LOG_LEVEL wins)',
  '  logFormat          json or pretty (default: pretty on a terminal, json when piped; LOG_FORMAT wins)',
  '  workers            "auto" (one per core) or a count: serve with that many worker processes (--workers wins)',
  '  metrics            true: serve GET /metrics in the Prometheus text format (behind the API keys when set)',
  '  readinessDrainMs   ms /health/ready answers 503 after SIGTERM before the listener closes (default 0)',
  '  shutdownGraceMs    ms requests in flight get to finish at shutdown before they are aborted (default 10000)',
  '  stopTimeoutMs      ms a shutdown may take in all; then a worker is killed, one process exits 1 (default 30000)',
  '  headersTimeoutMs   ms a client has to send the request headers (default 15000)',
  '  requestTimeoutMs   ms a client has to send the whole request (default 60000)',
  '  callers            [{"name", "apiKey" (16+ characters), "sources", "scopes", "patient"? (then one source), "operations"?, "rate"?} or',
  '                     {"issuer", "jwks" | "jwksUrl", "audience" (or "acceptAnyAudience": true), "patientSource"?, "maxTokenLifetimeSeconds"?, …}]:',
  '                     who may call the FHIR facade at <prefix>/<source> and <prefix>/<federated>, and what each may do (SMART scopes)',
  '  facade             {"enabled": true, "federatedName": "all", "limits": {"<source>" | "*": {"perSecond", "burst", "maxInFlight"}},',
  '                     "audit": {"source", "batchSize", "flushIntervalMs", "maxQueue"}, "pageTokenSecret" (32+ characters), "pageTokenTtlSeconds", "observerName"}',
  '                     Without callers the facade serves read and search on loopback only (said at start-up), and nothing beyond.',
  '  store              {"redis": "redis://…" or "${REDIS_URL}", "keyPrefix"?, "commandTimeoutMs"?}: replicas share the facade\'s rate',
  '                     limits and the gateway\'s tokens in Redis (needs the redis package: npm install redis)',
  'Relative module paths are resolved against the config file\'s folder.',
]);
