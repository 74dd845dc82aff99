/**
 * docs/acceptance.md's mapping file section, where the trainee guide points for the `--mapping` format:
 * its example is a mapping file the checker reads (MappingSchema) and spells out exactly the defaults,
 * and its table names every key the schema has.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAPPING, MappingSchema } from '../../app/judges/mapping.js';

const DOC = readFileSync(new URL('../../docs/acceptance.md', import.meta.url), 'utf8');
const section = /^## The mapping file\n([\s\S]*?)^## /m.exec(DOC)?.[1] ?? '';

/** The section's example and the keys its table names. */
function read(text: string) {
  const example = /^```json\n([\s\S]*?)^```$/m.exec(text)?.[1] ?? 'null';
  const keys = [...text.matchAll(/^\| `([a-z_.]+)`(?:, `([a-z_.]+)`)? \|/gm)].flatMap((m) =>
    [m[1], m[2]].filter((k): k is string => k !== undefined),
  );
  return { example: JSON.parse(example) as unknown, keys };
}

/** Every key path of the defaults down to the values the table explains. */
const KEYS = [
  ...Object.keys(DEFAULT_MAPPING.case).map((k) => `case.${k}`),
  ...Object.keys(DEFAULT_MAPPING.approval).map((k) => `approval.${k}`),
  'rollback_payload',
];

function problems(text: string): string[] {
  const { example, keys } = read(text);
  const out: string[] = [];
  const parsed = MappingSchema.safeParse(example);
  if (!parsed.success) out.push(`the example is refused: ${parsed.error.issues[0]?.path.join('.')}`);
  else if (JSON.stringify(parsed.data) !== JSON.stringify(DEFAULT_MAPPING))
    out.push('the example is not the defaults');
  for (const k of KEYS.filter((k) => !keys.includes(k))) out.push(`the table does not name ${k}`);
  for (const k of keys.filter((k) => !KEYS.includes(k))) out.push(`the table names ${k}, which is no key`);
  return out;
}

describe('the mapping file, as docs/acceptance.md documents it', () => {
  it('is there, its example the defaults, its table every key', () => {
    expect(section).not.toBe('');
    expect(problems(section)).toEqual([]);
  });

  it.each([
    ['a key the schema refuses', section.replace('"recovery_time"', '"recovery"'), 'refused'],
    ['a default changed', section.replace('"verification.blocked"', '"verified"'), 'not the defaults'],
    [
      'a key left out of the table',
      section.replace('| `case.recovery_time` |', '| recovery |'),
      'does not name case.recovery_time',
    ],
  ])('fails on %s', (_name, text, says) => {
    expect(problems(text).join('; ')).toContain(says);
  });
});
