/**
 * The host parts' shared state, named in one place: docker/lab.sh's head comment lists, for each part of
 * docker/lab/ (and lab.sh itself), the globals it sets that another part reads; this test finds them in the
 * scripts (an assignment outside `local`, read as $NAME, ${NAME...} or NAME[ in another file) and fails when
 * the list and the scripts differ. Shown failing on a list that lacks a global and on one that names too many.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

type Files = Record<string, string>;

const PARTS: Files = Object.fromEntries(
  [
    'docker/lab.sh',
    ...readdirSync('docker/lab')
      .filter((n) => n.endsWith('.sh'))
      .map((n) => `docker/lab/${n}`),
  ].map((p) => [p, readFileSync(p, 'utf8')]),
);

const short = (path: string) => path.replace(/^docker\/(lab\/)?/, '');

/** Each part's globals that another part reads: `part: NAME NAME`, sorted. */
function sharedGlobals(files: Files): string[] {
  const setBy = new Map<string, Set<string>>();
  for (const [path, text] of Object.entries(files)) {
    for (const line of text.split('\n')) {
      if (/^\s*(#|local\b)/.test(line)) continue;
      for (const m of line.matchAll(
        /(?:^|[\s;(])(?:export\s+|readonly\s+|declare\s+-\w+\s+)?([A-Z][A-Z0-9_]*)\+?=/g,
      )) {
        const name = m[1] as string;
        setBy.set(name, (setBy.get(name) ?? new Set()).add(path));
      }
    }
  }
  const byPart = new Map<string, string[]>();
  for (const [name, setters] of setBy) {
    const read = Object.entries(files).some(
      ([path, text]) => !setters.has(path) && new RegExp(`\\$\\{?!?${name}\\b|\\b${name}\\[`).test(text),
    );
    if (!read) continue;
    for (const setter of setters) byPart.set(short(setter), [...(byPart.get(short(setter)) ?? []), name]);
  }
  return [...byPart].map(([part, names]) => `${part}: ${names.sort().join(' ')}`).sort();
}

/**
 * The list in lab.sh's head comment: the `#   part: NAME NAME` lines after the "# Shared state" line, up to
 * the first line that is not one (a part may take several lines).
 */
function listed(labSh: string): string[] {
  const lines = labSh.split('\n');
  const start = lines.findIndex((l) => l.startsWith('# Shared state'));
  if (start < 0) return [];
  const byPart = new Map<string, string[]>();
  for (const line of lines.slice(start + 1)) {
    const m = line.match(/^#\s+([a-z.-]+\.sh): ([A-Z0-9_ ]+)$/);
    if (!m) break;
    byPart.set(m[1] as string, [...(byPart.get(m[1] as string) ?? []), ...(m[2] as string).split(' ')]);
  }
  return [...byPart].map(([part, names]) => `${part}: ${names.sort().join(' ')}`).sort();
}

describe("the host parts' shared state", () => {
  it("docker/lab.sh's head comment names every global one part sets and another reads, and no other", () => {
    const found = sharedGlobals(PARTS);
    expect(found.length).toBeGreaterThan(5);
    expect(listed(PARTS['docker/lab.sh'] ?? '')).toEqual(found);
  });

  it('fails on a list without a global, and on one with a global no other part reads', () => {
    const files = { 'docker/lab/a.sh': 'X=1\nY=2\n', 'docker/lab/b.sh': 'echo "$X"\n' };
    expect(sharedGlobals(files)).toEqual(['a.sh: X']);
    expect(listed('# Shared state:\n#   a.sh: X Y\n#\n')).not.toEqual(sharedGlobals(files));
    expect(listed('# Shared state:\n#\n')).not.toEqual(sharedGlobals(files));
    expect(listed('# Shared state:\n#   a.sh: X\n#\n')).toEqual(sharedGlobals(files));
  });
});
