// Preloaded into every test file's process by scripts/run-tests.mjs: a process warning fails the test that
// caused it (a MaxListenersExceededWarning is a listener leak; an unhandled one would only be printed).
// The warnings the suite expects are allowed here by name, and only here.

/** Warning names that do not fail a test, each with why. */
const ALLOWED = new Map([
  ['ExperimentalWarning', 'Node features the tests use on purpose (e.g. the test runner itself on Node 20)'],
]);

process.on('warning', (warning) => {
  if (ALLOWED.has(warning.name)) return;
  // Thrown from the listener, it becomes an uncaught exception, which node:test reports as a failure of
  // the test that was running.
  throw new Error(`unexpected process warning ${warning.name}: ${warning.message}`, { cause: warning });
});
