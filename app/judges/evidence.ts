/** Name-agnostic questions about JSON the trainee's workflow wrote: where the seed fixes no field names. */
import { walk } from '../judging/approval-request.js';

/** Some string in the value contains the text (case-insensitive), or some key equals it. */
export function mentions(value: unknown, text: string): boolean {
  const needle = text.toLowerCase();
  let hit = false;
  walk(value, (key, item) => {
    if (hit) return;
    if (key?.toLowerCase() === needle) hit = true;
    else if (typeof item === 'string' && item.toLowerCase().includes(needle)) hit = true;
  });
  return hit;
}

/** Some string value (not a key) contains the text, case-insensitive: a sentence naming a field. */
export function saysInText(value: unknown, text: string): boolean {
  const needle = text.toLowerCase();
  let hit = false;
  walk(value, (_key, item) => {
    if (!hit && typeof item === 'string' && item.toLowerCase().includes(needle)) hit = true;
  });
  return hit;
}

/** Some key matching the pattern holds a value that passes the test. */
export function someKey(value: unknown, pattern: RegExp, test: (value: unknown) => boolean): boolean {
  let hit = false;
  walk(value, (key, item) => {
    if (!hit && key !== null && pattern.test(key) && test(item)) hit = true;
  });
  return hit;
}

/** A key equal to `name` somewhere holds exactly `expected`. */
export function holdsValue(value: unknown, name: string, expected: unknown): boolean {
  return someKey(value, new RegExp(`^${name}$`), (item) => item === expected);
}

export { dig } from '../judging/dig.js';
