/**
 * The fixed-response upstream of `e2e-transform`, on `node:net` instead of `node:http`: every
 * `GET /fhir/R4/Patient/<id>` gets the same Patient as from fixed-fhir.ts, keep-alive, anything else a
 * 404 that closes the connection. It shares its core with the load generator; as a `node:http` server
 * it cost 31-61 µs of that core per request (more when its client's requests arrive one by one), and
 * at 256 connections that core ran out, which decided runs more than the server measured did. Here a
 * request costs a search for the end of its head and one write. Prints `listening <port>`.
 */
import { createServer, type Socket } from 'node:net';
import { FIXED_PATIENT, FIXED_PATIENT_HEADERS } from './fixed-patient.js';

const head = `HTTP/1.1 200 OK\r\n${Object.entries(FIXED_PATIENT_HEADERS).map(([k, v]) => `${k}: ${v}\r\n`).join('')}connection: keep-alive\r\nkeep-alive: timeout=60\r\n\r\n`;
const OK = Buffer.from(head + FIXED_PATIENT);
const NOT_FOUND = Buffer.from('HTTP/1.1 404 Not Found\r\ncontent-type: application/fhir+json\r\ncontent-length: 46\r\nconnection: close\r\n\r\n{"resourceType":"OperationOutcome","issue":[]}');
const READ = 'GET /fhir/R4/Patient/';

const sockets = new Set<Socket>();
const server = createServer((socket) => {
  sockets.add(socket);
  socket.once('close', () => sockets.delete(socket));
  socket.setNoDelay(true);
  // Request heads are bodiless GETs: each ends at an empty line. A head split over two reads is
  // completed by the next one.
  let pending = '';
  socket.on('data', (chunk: Buffer) => {
    const text = pending + chunk.toString('latin1');
    const answers: Buffer[] = [];
    let from = 0;
    for (let end = text.indexOf('\r\n\r\n'); end !== -1; end = text.indexOf('\r\n\r\n', from)) {
      const read = text.startsWith(READ, from);
      answers.push(read ? OK : NOT_FOUND);
      from = end + 4;
      if (!read) break;
    }
    pending = text.slice(from);
    if (answers.length === 1) socket.write(answers[0]!);
    else if (answers.length > 1) socket.write(Buffer.concat(answers));
    if (answers.at(-1) === NOT_FOUND) socket.end();
  });
  socket.on('error', () => socket.destroy());
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`listening ${address.port}`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  for (const socket of sockets) socket.destroy();
});
