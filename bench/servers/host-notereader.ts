/** fhirgate's host with a NoteReaderService whose handler answers the document it was given. */
import { createServiceAPI } from '../../src/index.js';
import { NoteReaderService } from '../../src/soap/index.js';
import { announce } from './transform-resource.js';

const nr = new NoteReaderService({ bodyLimit: 16 * 1024 * 1024 });
nr.method('ProcessDocument', ({ document }) => ({ document, error: '' }));
const app = createServiceAPI({ title: 'bench', logger: { debug() {}, info() {}, warn() {}, error() {} } });
app.registerService(nr, { path: '/notereader' });
const server = await app.listen(0, '127.0.0.1');
announce(server);
