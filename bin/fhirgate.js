#!/usr/bin/env node
// The `fhirgate` command. The published package runs the compiled CLI from dist/ with plain Node. A clone of
// the repository (src/ beside bin/, which the package does not ship) runs the TypeScript sources through
// tsx, a devDependency, so that `npm install && npx fhirgate …` works without a build and never runs a
// dist/ older than the sources.
import { existsSync } from 'node:fs';

const sources = new URL('../src/cli/index.ts', import.meta.url);
const built = new URL('../dist/cli/index.js', import.meta.url);

/** tsx's loader, or undefined when devDependencies are not installed (`npm ci --omit=dev`). */
async function tsxRegister() {
  try {
    return (await import('tsx/esm/api')).register;
  } catch {
    return undefined;
  }
}

const register = existsSync(sources) ? await tsxRegister() : undefined;
let entry = built;
if (register !== undefined) {
  register();
  entry = sources;
} else if (!existsSync(built)) {
  console.error('fhirgate: neither dist/ (run `npm run build`) nor tsx to run src/ (run `npm install`) is here');
  process.exit(1);
}
const { runProcess } = await import(entry.href);
await runProcess();
