#!/usr/bin/env node
// The `fhirgate` command: the compiled CLI from dist/, run with plain Node (no TypeScript loader).
import { runProcess } from '../dist/cli/index.js';

await runProcess();
