/** The cached resource every host benchmark server answers with, and the port announcement. */
import type { Server } from 'node:http';

/** The extension the end-to-end transform handlers add to the Patient they read. */
export const SUMMARY_EXTENSION = { url: 'https://fhirgate.dev/StructureDefinition/summary', valueString: 'female, born 1980' };

export const cachedPatient = {
  resourceType: 'Patient' as const,
  id: 'bench-1',
  active: true,
  name: [{ use: 'official' as const, family: 'Benchmark', given: ['Bea', 'Q'] }],
  gender: 'female' as const,
  birthDate: '1980-04-12',
  extension: [SUMMARY_EXTENSION],
};

/**
 * Prints `listening <port>`; on SIGTERM closes the server and exits; on SIGUSR2 forces a garbage
 * collection (when node runs with `--expose-gc`) and prints `gc done <heapUsed bytes>`.
 */
export function announce(server: Server): void {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`listening ${address.port}`);
  process.on('SIGUSR2', () => {
    globalThis.gc?.();
    console.log(`gc done ${process.memoryUsage().heapUsed}`);
  });
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
