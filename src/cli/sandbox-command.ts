/**
 * `fhirgate sandbox`: the embedded sandbox (an in-memory FHIR R4 server with an OAuth 2.0 token
 * endpoint) as a command, so that a first try of the CLI needs no code and no real server.
 * @module
 */
import { isLoopback } from '../auth/parse-connection-string.js';
import { startSandbox, type Sandbox, type SandboxSeed } from '../sandbox/index.js';
import type { CliIO, Command, OptionValues } from './command.js';
import { configError, optionalPort } from './config/checks.js';
import { untilStopped } from './until-stopped.js';

/** The port `fhirgate sandbox` listens on when `--port` does not say: next to `serve`'s 8000. */
export const SANDBOX_PORT = 8001;

const SEEDS: Readonly<Record<string, SandboxSeed>> = Object.freeze({ a: 'a', b: 'b', none: false });

/**
 * The `sandbox` command: starts the sandbox, prints its addresses, connection strings and ready
 * `check` / `serve` / `export` lines, and runs until SIGINT/SIGTERM (exit 0).
 */
export const SANDBOX_COMMAND: Command = {
  name: 'sandbox',
  summary: 'Start the embedded sandbox (in-memory FHIR R4 server + OAuth token endpoint) and print how to use it',
  usage: 'fhirgate sandbox [--port <n>] [--host <address>] [--seed a|b|none] [--open]',
  options: {
    port: { type: 'string', short: 'p', value: 'n', description: `Port to listen on; 0 picks a free one. Default ${SANDBOX_PORT}` },
    host: { type: 'string', value: 'address', description: 'Interface to listen on. Default 127.0.0.1 (the demo secret is public: keep it on loopback)' },
    seed: { type: 'string', value: 'a|b|none', description: 'The synthetic data set to start with: a (default), b (different patients), or none' },
    open: { type: 'boolean', description: 'FHIR endpoints need no token (a public server); the token endpoint still works' },
  },
  details: [
    'The data lives in memory only; Ctrl-C (SIGINT) or SIGTERM stops the sandbox and exits 0.',
    'Its client is fhirgate-demo with the secret demo-secret: a demo value, printed on purpose. For a real',
    'server keep secrets out of the command line (a config file with ${VAR}, or single-quoted \'${VAR}\').',
    '',
    'Examples:',
    '  fhirgate sandbox',
    '  fhirgate sandbox --port 0 --seed b --open',
  ],
  run: sandbox,
};

async function sandbox(values: OptionValues, io: CliIO): Promise<number> {
  const port = optionalPort(values.port, '--port') ?? SANDBOX_PORT;
  const host = (values.host as string | undefined) ?? '127.0.0.1';
  const seedName = (values.seed as string | undefined) ?? 'a';
  const seed = Object.hasOwn(SEEDS, seedName) ? SEEDS[seedName]! : undefined;
  if (seed === undefined) throw configError('--seed', 'must be a, b or none');
  const open = values.open === true;
  let sb: Sandbox;
  try {
    sb = await startSandbox({ port, host, seed, open });
  } catch (error) {
    const code = ((error as { cause?: NodeJS.ErrnoException }).cause ?? (error as NodeJS.ErrnoException)).code;
    // Not a mistake typed on the command line (exit 2) but the machine's state (exit 1), as for serve.
    if (code === 'EADDRINUSE') throw configError('port', `${port} on ${host} is in use; pick another with --port (0: any free port)`);
    throw error;
  }
  io.stdout.write(banner(sb, seedName, open));
  if (!isLoopback(host)) io.stderr.write(`fhirgate sandbox: listening on ${host}, beyond this machine: anyone who reaches it can read and write its data with the demo secret\n`);
  await untilStopped(io.signal);
  await sb.close();
  io.stdout.write('fhirgate sandbox: stopped\n');
  return 0;
}

/** What to copy: the addresses, the connection strings and commands that work as printed. */
function banner(sb: Sandbox, seed: string, open: boolean): string {
  const withUrl = sb.connectionString();
  const discovered = sb.connectionString(undefined, { discover: true });
  const publicBase = `fhir://${sb.fhirBase.replace(/^https?:\/\//, '')}/`;
  const use = open ? publicBase : withUrl;
  return [
    `fhirgate sandbox: an in-memory FHIR R4 server and OAuth 2.0 token endpoint (data set ${seed}${open ? ', open: no token needed' : ''})`,
    `  FHIR base        ${sb.fhirBase}`,
    `  token endpoint   ${sb.tokenUrl}  (client fhirgate-demo, secret demo-secret: a demo value)`,
    `  SMART config     ${sb.fhirBase}/.well-known/smart-configuration`,
    '',
    'Connection strings:',
    `  ${withUrl}`,
    `  ${discovered}  (token endpoint discovered)`,
    ...(open ? [`  ${publicBase}  (no credentials: the sandbox is open)`] : []),
    '',
    'In another terminal, in this clone (or a project that installed fhirgate):',
    `  npx fhirgate check --source 'sandbox=${use}'`,
    `  npx fhirgate serve --source 'sandbox=${use}'`,
    `  npx fhirgate export '${use}' --type Patient,Observation --out ./export`,
    '',
    'Ctrl-C stops the sandbox (its data lives in memory only).',
    '',
  ].join('\n');
}
