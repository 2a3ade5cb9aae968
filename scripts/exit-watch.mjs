// Used by every run's module that scripts/test-runs.mjs writes: a test process that has finished all its
// tests but does not exit (a server, socket, timer or child process left open) fails within a bound, with a
// message naming its files and what keeps it alive, instead of idling until the runner's 10-minute timeout
// cuts it with no word of why. The watch is one unref'd timer, set when the run's last test is done: a
// process that exits on its own never sees it, and it costs the suite nothing.

/** The handles seen open after each file's tests, by the path of the first file they were seen after. */
const firstSeen = new Map();

/** Notes which handles are open now that `file`'s tests (and its hooks) are done, for the report. */
export function noteHandles(file) {
  for (const handle of process._getActiveHandles()) if (!firstSeen.has(handle)) firstSeen.set(handle, file);
}

/** `address` ({ address, port } or a pipe's path) as `host:port`. */
function where(address) {
  if (address === null || address === undefined) return 'no address';
  return typeof address === 'string' ? address : `${address.address}:${address.port}`;
}

/** One line that says what `handle` is and where it points, or undefined for the process's own stdio. */
function explain(handle) {
  if (handle === process.stdin || handle === process.stdout || handle === process.stderr) return undefined;
  const kind = handle.constructor?.name ?? typeof handle;
  let what;
  if (typeof handle.listen === 'function') what = `a server (${kind}) listening on ${where(handle.address())}, connections open: ${handle._connections}`;
  else if (typeof handle.remotePort === 'number') {
    const side = handle.server ? 'accepted by a server of this process' : 'opened by this process';
    what = `a socket (${kind}) ${handle.localAddress}:${handle.localPort} → ${handle.remoteAddress}:${handle.remotePort}, ${side}`;
  } else if (typeof handle.connecting === 'boolean') what = `a socket (${kind}) ${handle.connecting ? 'still connecting' : 'not connected'}`;
  else if (typeof handle.pid === 'number') what = `a child process (${kind}) pid ${handle.pid}: ${(handle.spawnargs ?? [handle.spawnfile]).join(' ')}`;
  else what = `a ${kind}`;
  // The HTTP exchange a socket is in, if any: a request sent and not answered, or an answer not finished.
  const message = handle._httpMessage;
  if (typeof message?.method === 'string') what += `, its request ${message.method} ${message.path} not answered`;
  else if (typeof message?.req?.method === 'string') what += `, its answer to ${message.req.method} ${message.req.url} not finished`;
  const file = firstSeen.get(handle);
  return file === undefined ? what : `${what} (open already when the tests of ${file} were done)`;
}

/**
 * Arms the watch once the run's last test is done: if the process is still alive `seconds` later, it writes
 * what keeps it alive to stderr (which the runner reports under the run's module) and exits with code 1, so
 * that the run fails and names itself.
 */
export function watchExit(files, seconds) {
  setTimeout(() => {
    const handles = process._getActiveHandles().map(explain).filter((line) => line !== undefined);
    const lines = [
      `this test process finished its tests ${seconds} s ago and has not exited: something its tests left open keeps it alive.`,
      `its files: ${files.join(', ')}`,
      `what keeps it alive (process.getActiveResourcesInfo()): ${process.getActiveResourcesInfo().join(', ')}`,
      `of them, the handles other than this process's own stdio (a Timeout is a timer, setTimeout or setInterval, neither cleared nor unref'd):`,
      ...handles.map((line) => `  ${line}`),
    ];
    process.stderr.write(`${lines.map((line) => `exit watch: ${line}`).join('\n')}\n`);
    process.exit(1);
  }, seconds * 1000).unref();
}
