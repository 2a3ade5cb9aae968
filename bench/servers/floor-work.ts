/**
 * Work a floor server can be told to do per request before it forwards: `BENCH_FLOOR_WORK_US` microseconds of
 * a plain loop (default 0: none). With it, a floor spends per request what a contender's features spend, and
 * shows what its transport costs in a process that works rather than one that only forwards (issue 38, eighth
 * round in bench/RESULTS.md).
 */
const raw = process.env.BENCH_FLOOR_WORK_US ?? '0';
const workUs = Number(raw);
if (!Number.isFinite(workUs) || workUs < 0) throw new Error(`BENCH_FLOOR_WORK_US must be a number of microseconds, not "${raw}"`);

/** True when a floor is told to work (a Fastify floor then adds its hook; without, it stays as it was). */
export const FLOOR_WORKS = workUs > 0;

/** Spins for `BENCH_FLOOR_WORK_US` microseconds (wall clock, on a pinned core the same in CPU). */
export function floorWork(): void {
  if (!FLOOR_WORKS) return;
  const until = performance.now() + workUs / 1000;
  while (performance.now() < until);
}
