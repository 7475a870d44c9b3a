// The declared name nearest to a mistyped one, for a "did you mean" in an error message.

/** Levenshtein distance of two short texts. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The name of `names` that `given` most likely meant: one it begins (3 letters at least), else the closest within
 * a typo or two (a third of its length for a long one); undefined when none is that near.
 */
export function nearestName(given: string, names: readonly string[]): string | undefined {
  const typed = given.toLowerCase();
  if (typed.length >= 3) {
    const begun = names.filter((name) => name.startsWith(typed));
    if (begun.length === 1) return begun[0];
  }
  const limit = Math.max(2, Math.floor(typed.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(typed, name);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}
