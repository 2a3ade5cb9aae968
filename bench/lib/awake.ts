/**
 * Cores kept awake for a latency measurement: one busy loop per core at Linux's `SCHED_IDLE` priority (`chrt --idle
 * 0`), which runs only when nothing else wants the core and yields to any other task that wakes. On this virtual
 * machine an idle virtual CPU halts, and waking it for a request that crosses cores costs tens to hundreds of
 * microseconds that no server's code spends (issue 38, eighth round in bench/RESULTS.md); with the loops, a request
 * meets cores as a serving host's are, busy with other work.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { hasTaskset } from './processes.js';

/** Throws unless `chrt` and `taskset` (util-linux) are there to start the loops; asked only by the one mode that keeps cores awake. */
export function checkCanKeepCoresAwake(): void {
  if (!hasTaskset || spawnSync('chrt', ['--idle', '0', 'true']).status !== 0) throw new Error('keeping cores awake needs chrt and taskset (util-linux)');
}

/** Starts one `SCHED_IDLE` busy loop per core; resolves, once they run, to the function that stops them. */
export async function keepCoresAwake(): Promise<() => void> {
  const loops: ChildProcess[] = [];
  for (let core = 0; core < availableParallelism(); core++) {
    loops.push(spawn('chrt', ['--idle', '0', 'taskset', '-c', String(core), process.execPath, '-e', 'for (;;);'], { stdio: 'ignore' }));
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  return () => {
    for (const loop of loops) loop.kill('SIGKILL');
  };
}
