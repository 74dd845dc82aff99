/**
 * Reading one value out of a JSON record by a dotted path (`evidence.identity.user`): the acceptance
 * matrix's verdicts and the stage checker's evidence both judge records this way.
 */

/** The value at a dotted path; undefined when any step is missing. */
export function dig(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = Object.entries(current).find(([k]) => k === key)?.[1];
  }
  return current;
}
