/** For held-lines.test.ts: holds the lines of a JSON logger on stdout, logs one, and exits in the same turn. */
import { holdLinesOf } from '../../src/host/held-lines.js';
import { createJSONLogger } from '../../src/host/index.js';

const log = createJSONLogger();
holdLinesOf(log);
log.info('last words', { n: 1 });
process.exit(0);
