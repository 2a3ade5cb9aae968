/**
 * "Did you mean …?" for names a person typed (an option, a connection-string parameter, a command). An
 * error may quote what was typed only when it is a near miss of a known name: anything else may be part
 * of a secret pasted in the wrong place, so it is described by its position instead.
 * @module
 */

/** Edits allowed for a name of this length to count as an obvious typo: 1 up to 5 characters, else 2. */
function allowedEdits(length: number): number {
  return length <= 5 ? 1 : 2;
}

/**
 * The known name `typed` is an obvious typo of (case, `-` for `_`, or 1–2 letters inserted, dropped,
 * changed or swapped), or `undefined`. Names of 1 or 2 characters never match: any text is close to them.
 */
export function nearestName(typed: string, known: readonly string[]): string | undefined {
  const wanted = normalise(typed);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    if (name.length < 3) continue;
    const distance = editDistance(wanted, normalise(name), allowedEdits(name.length));
    if (distance <= allowedEdits(name.length) && distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

function normalise(name: string): string {
  return name.toLowerCase().replaceAll('-', '_');
}

/** Optimal string alignment distance (Levenshtein plus adjacent swaps), given up above `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current.push(d);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}
