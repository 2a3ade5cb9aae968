/**
 * The one way a test serves something over HTTP: the real host, `createServiceAPI()`, listening on
 * 127.0.0.1 port 0 with a capturing logger and no API keys, closed in `t.after`.
 * @module
 */
import type { TestContext } from 'node:test';
import type { EventDispatcher } from '../../src/events/types.js';
import { createServiceAPI, type ServiceAPI, type ServiceAPIOptions } from '../../src/host/index.js';
import { MOUNT, type Mountable, type MountableComponent } from '../../src/mount/index.js';
import { captureLogger, type CapturingLogger, type LogLine } from './logger.js';
import { recordingDispatcher } from './recording-dispatcher.js';

/** A listening app. */
export interface StartedApp {
  app: ServiceAPI;
  /** `http://127.0.0.1:<port>` */
  base: string;
  log: CapturingLogger;
}

/**
 * An app with a capturing logger (`log`, a fresh one by default) and no API keys (unless `options` says otherwise), set up by `setup`,
 * listening on 127.0.0.1:0, closed after the test.
 *
 * @example
 * ```ts
 * const { base, log } = await startApp(t, { metrics: true }, (app) => app.registerGateway(gw));
 * const res = await fetch(`${base}/metrics`);
 * ```
 */
export async function startApp(
  t: TestContext,
  options: ServiceAPIOptions = {},
  setup: (app: ServiceAPI) => void = () => {},
  log: CapturingLogger = captureLogger(),
): Promise<StartedApp> {
  const app = createServiceAPI({ apiKeys: [], logger: log, ...options });
  setup(app);
  const server = await app.listen(0);
  t.after(() => app.close());
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return { app, base: `http://127.0.0.1:${address.port}`, log };
}

/** Options of {@link serve}: the host's options plus where to mount. */
export interface ServeOptions extends ServiceAPIOptions {
  /** The mount point; default the component's own `defaultPath`. */
  path?: string;
}

/** A component served by the real host. */
export interface Served extends StartedApp {
  /** The mount point, e.g. `http://127.0.0.1:1234/cds`. */
  baseUrl: string;
  /** Where the host sends the component's events: `options.dispatcher`, else a fresh recording one (never the process-wide `localHandler`). */
  events: EventDispatcher;
  /** What the component logged through its requests (the host's own `request` and `request failed` lines left out). */
  readonly logs: LogLine[];
}

/**
 * Mounts a component (or an already made face of one) on the real host and listens, as in production.
 * The host hands the component its dispatcher, so pass `dispatcher` to see the events the component emits.
 *
 * @example
 * ```ts
 * const dispatcher = recordingDispatcher();
 * const { baseUrl } = await serve(t, new CDSHooksService(), { dispatcher });
 * const res = await fetch(`${baseUrl}/cds-services`);
 * ```
 */
export async function serve(t: TestContext, component: MountableComponent | Mountable, options: ServeOptions = {}): Promise<Served> {
  const { path, ...host } = options;
  const face = MOUNT in component ? component[MOUNT]() : component;
  const name = MOUNT in component ? component.constructor.name : 'Served';
  const mountable: MountableComponent = { [MOUNT]: () => face };
  const prefix = path ?? face.defaultPath;
  const events = host.dispatcher ?? recordingDispatcher();
  const logs: LogLine[] = [];
  const log = captureLogger((line) => {
    if ('request_id' in line.fields && line.message !== 'request' && line.message !== 'request failed') logs.push(line);
  });
  const started = await startApp(
    t,
    { ...host, dispatcher: events },
    (app) => (face.kind === 'gateway' ? app.registerGateway(mountable, { path: prefix, name }) : app.registerService(mountable, { path: prefix, name })),
    log,
  );
  return { ...started, events, logs, baseUrl: `${started.base}${prefix === '/' ? '' : prefix.replace(/\/$/, '')}` };
}
