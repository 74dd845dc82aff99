/**
 * Reads docs/trainee-guide.md's stages the way a trainee does: each stage's heading (its number, title and
 * the stage to check), the rows of its node table (name, kind, the parameters cell), its code blocks and
 * which node each belongs to (the paragraph before the block names the node; a block right after the table
 * belongs to the one node of the table whose row says "the code below" and has no block of its own), and
 * the rest of its text. test/docs/guide-workflow.test.ts compares what this reads with the artifact.
 */

export interface GuideRow {
  name: string;
  kind: string;
  cell: string;
}

export interface GuideSection {
  number: number;
  title: string;
  stage: string;
  rows: GuideRow[];
  /** The blocks by the node they belong to; `null` when no node could be told. */
  blocks: { node: string | null; text: string }[];
  text: string;
}

const ROW = /^\| \*\*(.+?)\*\* \| \*(.+?)\* \| (.*) \|$/;

/** The stage sections, in the guide's order. */
export function guideSections(guide: string): GuideSection[] {
  const parts = guide.split(/^(?=### \d+ )/m).slice(1);
  return parts.map((part) => {
    const text = part.split(/^## /m)[0] ?? '';
    const heading = /^### (\d+) (.+?) — check `([a-z-]+)`$/m.exec(text);
    if (heading === null) throw new Error(`a stage heading without its check: ${text.split('\n')[0]}`);
    const rows = text
      .split('\n')
      .map((line) => ROW.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ name: m[1] ?? '', kind: m[2] ?? '', cell: m[3] ?? '' }));
    return {
      number: Number(heading[1]),
      title: heading[2] ?? '',
      stage: heading[3] ?? '',
      rows,
      blocks: blocksOf(text, rows),
      text,
    };
  });
}

function blocksOf(text: string, rows: GuideRow[]): GuideSection['blocks'] {
  const found = [...text.matchAll(/^```text\n([\s\S]*?)\n^```$/gm)].map((m) => {
    const before =
      text
        .slice(0, m.index)
        .trimEnd()
        .split(/\n\s*\n/)
        .at(-1) ?? '';
    return { before: before.trim(), text: m[1] ?? '' };
  });
  // The longest name first: "Build rollback record" before a shorter name it starts with.
  const names = rows.map((r) => r.name).sort((a, b) => b.length - a.length);
  const labelled = found.map((b) => ({
    ...b,
    node: b.before.startsWith('|')
      ? null
      : (names.find((n) => b.before.startsWith(n) && /^[ ,(:]/.test(b.before.slice(n.length))) ?? null),
  }));
  const withBlock = new Set(labelled.map((b) => b.node));
  const open = rows.filter((r) => /code below/.test(r.cell) && !withBlock.has(r.name));
  return labelled.map((b) => ({
    node: b.node ?? (b.before.startsWith('|') && open.length === 1 ? (open[0]?.name ?? null) : null),
    text: b.text,
  }));
}

/**
 * What is left of a row's parameters cell once the node's facts are taken out: it must say nothing more
 * a trainee would set or connect (no connection, no bold node name, no `*Label* \`value\``, no
 * `*Label* *Choice*`, no inline code). Returns the pieces that do.
 */
export function unexplained(cell: string, facts: readonly string[]): string[] {
  let rest = cell;
  for (const fact of [...facts].sort((a, b) => b.length - a.length)) rest = rest.split(fact).join(' ¦ ');
  const patterns = [
    /→[^¦]*/g,
    /\*\*[^*]+\*\*/g,
    /\*[^*\s][^*]*\* `[^`]*`/g,
    /\*[^*\s][^*]*\* \*[^*\s][^*]*\*/g,
    /`return [^`]*`/g,
  ];
  return patterns.flatMap((p) => rest.match(p) ?? []);
}
