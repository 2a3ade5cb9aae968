/**
 * A loopback HTTP sink for CloudEvents tests: records every POST (headers and body) and can go down
 * (its listener closed: connections are refused, and no other test's server is given the port) and come
 * back on the same port.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { closeKeepingPort } from './free-port.js';

export interface SinkRequest {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface EventSink {
  readonly url: string;
  readonly requests: SinkRequest[];
  /** The status the next requests get. Default 200. */
  status: number;
  down(): Promise<void>;
  up(): Promise<void>;
}

export async function startEventSink(t: TestContext): Promise<EventSink> {
  let server: Server | undefined;
  let port = 0;
  const sink: EventSink = {
    url: '',
    requests: [],
    status: 200,
    async down() {
      const s = server;
      server = undefined;
      if (s === undefined) return;
      s.closeAllConnections();
      await closeKeepingPort(s);
    },
    async up() {
      const s = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          if (sink.status < 300) sink.requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
          res.writeHead(sink.status).end();
        });
      });
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, '127.0.0.1', resolve);
      });
      port = (s.address() as AddressInfo).port;
      server = s;
    },
  };
  await sink.up();
  (sink as { url: string }).url = `http://127.0.0.1:${port}/events`;
  t.after(() => sink.down());
  return sink;
}
