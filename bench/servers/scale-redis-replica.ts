/**
 * One replica of `npm run scale-test`'s Redis-outage case, set up as docs/events.md says: a node-redis
 * client with an `'error'` listener, `disableOfflineQueue`, `pingInterval` and a reconnect strategy that
 * never gives up, wrapped by `redisStore` (`commandTimeoutMs` from COMMAND_TIMEOUT_MS, default 500) and
 * shared by the gateway's token cache and the CDS `jti` replay check. A transform handler reads the
 * Patient from SOURCE (a sandbox connection string) through the gateway; CDS service `svc` checks client
 * JWTs from CDS_ISSUER (keys at CDS_JWKS_URL), audience `https://cds.example.org/cds/cds-services/svc`.
 * Prints JSON lines on stdout: `{"listening": port}`, one `{"redisError": message}` per `'error'` event
 * the client emitted, and `{"warning": name}` per process warning. No `uncaughtException` or
 * `unhandledRejection` handler: an unhandled event ends the process, which the case sees.
 */
import { createClient } from 'redis';
import { AsyncFHIRGateway, CDSHooksService, createServiceAPI } from '../../src/index.js';
import { redisStore } from '../../src/redis/index.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};
const line = (fields: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(fields)}\n`);

const redis = createClient({
  url: env('REDIS_URL'),
  disableOfflineQueue: true,
  pingInterval: 10_000,
  socket: { connectTimeout: 2_000, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 2_000) },
});
redis.on('error', (err: Error) => line({ redisError: err.message }));
process.on('warning', (warning) => line({ warning: warning.name }));
await redis.connect();
const store = redisStore(redis, { commandTimeoutMs: Number(process.env['COMMAND_TIMEOUT_MS'] ?? 500) });

const gw = new AsyncFHIRGateway({ tokenStore: store, events: false });
gw.addSource('ehr', env('SOURCE'));
gw.transform('Patient', (id, source) => gw.read('Patient', id, source));
const cds = new CDSHooksService({ auth: { issuers: [{ issuer: env('CDS_ISSUER'), jwksUrls: [env('CDS_JWKS_URL')] }], replayStore: store } });
cds.hook('patient-view', { id: 'svc', description: 'scale test' }, () => ({ cards: [] }));

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const app = createServiceAPI({ title: 'scale redis replica', logger: quiet, publicUrl: 'https://cds.example.org', enableEvents: false });
app.registerGateway(gw, { path: '/fhir' }).registerService(cds, { path: '/cds' });
const server = await app.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1');
const address = server.address();
line({ listening: typeof address === 'object' && address !== null ? address.port : 0 });
process.once('SIGTERM', () => {
  app.close().then(
    () => {
      redis.destroy();
      process.exit(0);
    },
    () => process.exit(1),
  );
});
