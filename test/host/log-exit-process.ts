/**
 * Logs `argv[2]` info lines (a warn line half way) through the JSON logger to stdout (a pipe), then ends the process in the
 * same turn of the event loop: `exit` calls `process.exit(0)`, `throw` throws an uncaught error;
 * `crash-in-immediate` first queues an immediate that throws, whose `uncaughtException` handler logs an
 * error line and exits a little later (as a crashing cluster worker does).
 */
import { createJSONLogger } from '../../src/host/index.js';

const [count, end] = [Number(process.argv[2]), process.argv[3]];
const log = createJSONLogger();
if (end === 'crash-in-immediate') {
  process.on('uncaughtException', (error) => {
    log.error('crashed', { error: error.message });
    setTimeout(() => process.exit(1), 20);
  });
  setImmediate(() => {
    throw new Error('thrown in an immediate');
  });
}
for (let i = 0; i < count; i++) {
  log.info('line', { i });
  // A warn line flushes what is held (to stderr, the lines to stdout); the lines after it are held again.
  if (i === count >> 1) log.warn('half way');
}
if (end === 'throw') throw new Error('the process ends here');
if (end === 'exit') process.exit(0);
