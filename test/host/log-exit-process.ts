/**
 * Logs `argv[2]` info lines through the JSON logger to stdout (a pipe), then ends the process in the
 * same turn of the event loop: `exit` calls `process.exit(0)`, `throw` throws an uncaught error.
 */
import { createJSONLogger } from '../../src/host/index.js';

const [count, end] = [Number(process.argv[2]), process.argv[3]];
const log = createJSONLogger();
for (let i = 0; i < count; i++) log.info('line', { i });
if (end === 'throw') throw new Error('the process ends here');
process.exit(0);
