/** The CPU time a process has used, read from `/proc`, for the server CPU per request of the tables. */
import { readFileSync } from 'node:fs';

/** CPU seconds (user + system, every thread) process `pid` has used; NaN where there is no `/proc`. */
export function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}
