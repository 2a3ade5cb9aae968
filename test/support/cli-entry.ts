// The CLI run from the TypeScript sources, as bin/fhirgate.js runs it from dist/ (tests start it as a child process).
import { runProcess } from '../../src/cli/index.js';

await runProcess();
