/**
 * docs/trainee-guide.md and the guide's workflow (app/workflow/guide, the artifact the offline and n8n
 * checks run and the starters are cut from) say the same: each stage's table names the stage's nodes in
 * order, each row the node's kind, every parameter, expression and connection of the node and nothing
 * more, each code block is its node's code or JSON word for word, and what a stage deletes or changes is
 * said in its text. The guide is read (test/docs/guide-read.ts), never generated: change one, change both.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STAGE_NAMES } from '../../app/stages/stages.js';
import type { GuideNode } from '../../app/workflow/guide/kinds.js';
import { RESPONSE_STEPS, type StageStep } from '../../app/workflow/guide/response.js';
import { rollbackGuideNodes } from '../../app/workflow/guide/rollback.js';
import { type GuideSection, guideSections, unexplained } from './guide-read.js';

const GUIDE = readFileSync(new URL('../../docs/trainee-guide.md', import.meta.url), 'utf8');

/** The nodes a stage's table shows: the response workflow's, or for Rollback the second workflow's. */
function tableNodes(step: StageStep): GuideNode[] {
  return step.stage === 'rollback' ? rollbackGuideNodes() : step.nodes;
}

/** Every way `section` differs from `step`, one line each. */
function sectionProblems(section: GuideSection, step: StageStep): string[] {
  const nodes = tableNodes(step);
  const at = `stage ${section.number} (${section.stage})`;
  const problems: string[] = [];
  const names = section.rows.map((r) => r.name);
  if (JSON.stringify(names) !== JSON.stringify(nodes.map((n) => n.name)))
    problems.push(
      `${at}: the table names ${names.join(', ')}; the workflow ${nodes.map((n) => n.name).join(', ')}`,
    );
  for (const node of nodes) {
    const row = section.rows.find((r) => r.name === node.name);
    if (row === undefined) continue;
    if (row.kind !== node.kind)
      problems.push(`${at}: ${node.name} is a ${row.kind} in the guide, a ${node.kind} here`);
    for (const fact of node.facts.filter((f) => !row.cell.includes(f)))
      problems.push(`${at}: ${node.name}'s row does not say ${fact}`);
    for (const extra of unexplained(row.cell, node.facts))
      problems.push(`${at}: ${node.name}'s row says ${extra.trim()}, which the workflow does not hold`);
    const blocks = section.blocks.filter((b) => b.node === node.name);
    if (node.block === undefined && blocks.length > 0)
      problems.push(`${at}: ${node.name} has a code block in the guide only`);
    if (node.block !== undefined && blocks.length !== 1)
      problems.push(`${at}: ${node.name} has ${blocks.length} code blocks`);
    for (const b of blocks)
      if (node.block !== undefined && b.text !== node.block)
        problems.push(`${at}: ${node.name}'s code block differs:\n${diffLine(b.text, node.block)}`);
  }
  for (const b of section.blocks.filter((b) => b.node === null))
    problems.push(`${at}: a code block no node's: ${b.text.split('\n')[0]}`);
  for (const fact of [...(step.deletes ?? []), ...(step.changes ?? [])].map((x) => x.fact))
    if (!section.text.includes(fact)) problems.push(`${at}: the text does not say ${fact}`);
  return problems;
}

/** The first line where two texts differ, both ways. */
function diffLine(guide: string, artifact: string): string {
  const [g, a] = [guide.split('\n'), artifact.split('\n')];
  const i = g.findIndex((line, k) => line !== a[k]);
  const k = i === -1 ? g.length : i;
  return `  guide:    ${g[k] ?? '(end)'}\n  workflow: ${a[k] ?? '(end)'}`;
}

const sections = guideSections(GUIDE);

describe('the trainee guide holds the guide’s workflow', () => {
  it('has one section a stage, numbered, each naming its check', () => {
    expect(sections.map((s) => [s.number, s.stage])).toEqual(STAGE_NAMES.map((s, i) => [i + 1, s]));
  });

  it.each(RESPONSE_STEPS.map((step, i) => [i + 1, step.stage, step]))(
    'stage %i (%s): its table, code blocks and changes are the workflow’s',
    (number, _stage, step) => {
      const section = sections[number - 1];
      if (section === undefined) throw new Error(`no section ${number}`);
      expect(sectionProblems(section, step)).toEqual([]);
    },
  );

  it('the node kinds table gives each kind the n8n type the workflow uses', () => {
    const table = new Map(
      [...GUIDE.matchAll(/^\| \*([A-Za-z ]+)\* \| `(n8n-nodes-base\.\w+)` \|/gm)].map((m) => [m[1], m[2]]),
    );
    const used = [...RESPONSE_STEPS.flatMap((s) => s.nodes), ...rollbackGuideNodes()];
    expect(used.filter((n) => table.get(n.kind) !== n.type).map((n) => `${n.name}: ${n.kind}`)).toEqual([]);
  });

  it('the workflow at a glance names every node of both workflows', () => {
    const glance = /^## The workflow at a glance\n([\s\S]*?)^## /m.exec(GUIDE)?.[1] ?? '';
    const names = [...RESPONSE_STEPS.flatMap((s) => s.nodes), ...rollbackGuideNodes()].map((n) =>
      n.name.replace(/ \(confidence >= \d+\)$/, ''),
    );
    expect(names.filter((n) => !glance.includes(n))).toEqual([]);
  });
});

describe('the comparison fails when the guide and the workflow differ', () => {
  const step = RESPONSE_STEPS[1] as StageStep;
  const section = sections[1] as GuideSection;
  const edit = (from: string, to: string): GuideSection => {
    const rows = section.rows.map((r) => ({ ...r, cell: r.cell.replace(from, to) }));
    const blocks = section.blocks.map((b) => ({ ...b, text: b.text.replace(from, to) }));
    return { ...section, rows, blocks, text: section.text.replace(from, to) };
  };

  it('holds the guide as it is', () => {
    expect(sectionProblems(section, step)).toEqual([]);
  });

  it.each([
    ['an expression changed', '{{ $json.valid }}', '{{ $json.ok }}', 'does not say *value1*'],
    [
      'a connection dropped',
      '*false* → **Notify validation error**',
      '*false* → (nothing)',
      'does not say *false*',
    ],
    ['a connection added', 'JSON body below', 'JSON body below; → **Valid?**', 'says → **Valid?**'],
    ['a setting added', 'JSON body below', 'JSON body below; *Timeout* `10000`', 'says *Timeout* `10000`'],
    [
      'a line of code changed',
      "errors.push(field + ' is required')",
      "errors.push(field + ' missing')",
      'code block differs',
    ],
  ])('%s', (_name, from, to, says) => {
    expect(sectionProblems(edit(from, to), step).join('\n')).toContain(says);
  });
});
