/**
 * The stage briefs (app/stages/briefs.ts), the words the checker prints and the console shows before a
 * check: each stage's brief lists exactly what the checker judges for it, in its order (Validate's eight
 * alerts folded into one), and no brief gives the solution away (no expression, no node JSON). Each check
 * is a function, shown to fail on a broken input.
 */
import { describe, expect, it } from 'vitest';
import { SCENARIOS, type Scenario } from '../../app/judges/scenarios.js';
import { checkWords, MAPPED_FIELDS, type StageBrief } from '../../app/stages/briefs.js';
import { STAGE_NAMES, STAGE_TITLES } from '../../app/stages/stages.js';
import { APPROVAL_THRESHOLD } from '../../app/workflow/constants.js';

const WORDS = checkWords(APPROVAL_THRESHOLD);
const INVALID = ['production', ...MAPPED_FIELDS];
const anyInvalid = WORDS.requires.validate.nothingAsked.when;
const recordedText = WORDS.requires.validate.errorRecorded.text;
const invalidStimuli = new Set(INVALID.map(WORDS.stimulus.invalid));
const namedTexts = new Set(INVALID.map((f) => WORDS.errorRecorded(f === 'production' ? 'environment' : f)));

/** What the checker judges for `stage`: (stimulus, text) in its order, Validate's alerts folded into one. */
function judged(scenarios: readonly Scenario[], stage: string): { when: string; text: string }[] {
  const pairs = scenarios.flatMap((s) =>
    s.expectations.filter((x) => x.stage === stage).map((x) => ({ when: s.stimulus, text: x.text })),
  );
  if (stage !== 'validate') return pairs;
  const folded = pairs.map(({ when, text }) => ({
    when: invalidStimuli.has(when) ? anyInvalid : when,
    text: namedTexts.has(text) ? recordedText : text,
  }));
  return [...new Map(folded.map((p) => [JSON.stringify(p), p])).values()];
}

/** Where the briefs and the checker's expectations differ, one line each. */
function differences(briefs: readonly StageBrief[], scenarios: readonly Scenario[]): string[] {
  const found: string[] = [];
  for (const stage of STAGE_NAMES) {
    const brief = briefs.find((b) => b.stage === stage);
    if (brief === undefined) {
      found.push(`${stage}: no brief`);
      continue;
    }
    const want = judged(scenarios, stage).map((p) => `${p.when}: ${p.text}`);
    const have = brief.expectations.map((p) => `${p.when}: ${p.text}`);
    for (const line of want.filter((l) => !have.includes(l)))
      found.push(`${stage}: the brief lacks "${line}"`);
    for (const line of have.filter((l) => !want.includes(l)))
      found.push(`${stage}: the checker never judges "${line}"`);
    if (found.length === 0 && JSON.stringify(want) !== JSON.stringify(have))
      found.push(`${stage}: another order`);
    if (brief.title !== STAGE_TITLES[stage]) found.push(`${stage}: title ${brief.title}`);
  }
  return found;
}

/** What would give the solution away: an n8n expression, code, or node JSON. */
const SOLUTION = [
  /\{\{|\}\}/,
  /\$(json|env|execution|\(|node|input)/,
  /=>/,
  /"(nodes|parameters|type)"\s*:/,
  /n8n-nodes-base/,
];
function solutionIn(briefs: readonly StageBrief[]): string[] {
  return briefs.flatMap((b) =>
    [b.goal, ...b.expectations.flatMap((x) => [x.when, x.text])]
      .filter((text) => SOLUTION.some((p) => p.test(text)))
      .map((text) => `${b.stage}: ${text}`),
  );
}

describe('the stage briefs', () => {
  it('list, for every stage, exactly what the checker judges, in its order, under its titles', () => {
    expect(WORDS.briefs.map((b) => b.stage)).toEqual([...STAGE_NAMES]);
    expect(differences(WORDS.briefs, SCENARIOS)).toEqual([]);
    const block = WORDS.briefs.find((b) => b.stage === 'block');
    expect(block?.expectations.map((x) => x.text)).toEqual([
      'one block request after the approval (exactly one POST /blocklist, accepted)',
      'the entry holds the address, the event id and expires_minutes 10',
      'a follow-up GET /blocklist/<ip> checks the entry',
    ]);
  });

  it('give no solution away: no expression, no code, no node JSON', () => {
    expect(solutionIn(WORDS.briefs)).toEqual([]);
  });

  it('are the words the checker prints: Validate names each field, the threshold is the lab’s', () => {
    const validate = SCENARIOS.filter((s) => s.id.startsWith('validate-'));
    expect(validate.map((s) => s.stimulus)).toEqual(INVALID.map(WORDS.stimulus.invalid));
    expect(validate[4]?.expectations.map((x) => x.text)).toEqual([
      'no enrichment or response request',
      'the validation error is recorded (a notification or case naming source_ip)',
    ]);
    expect(WORDS.requires.decide.noApprovalBelow.text).toBe(
      `below ${APPROVAL_THRESHOLD} no approval is requested`,
    );
    expect(SCENARIOS[0]?.stimulus).toBe(`valid alert, confidence ${APPROVAL_THRESHOLD - 1}`);
  });
});

describe('the checks above fail on a broken input', () => {
  const edit = (stage: string, change: (b: StageBrief) => StageBrief) =>
    WORDS.briefs.map((b) => (b.stage === stage ? change(structuredClone(b)) : b));

  it.each([
    [
      'a brief missing an expectation',
      edit('block', (b) => ({ ...b, expectations: b.expectations.slice(0, -1) })),
      'lacks',
    ],
    [
      'a brief with a text the checker does not print',
      edit('enrich', (b) => ({ ...b, expectations: [...b.expectations, { when: 'x', text: 'y' }] })),
      'never judges "x: y"',
    ],
    [
      'a brief in another order',
      edit('record', (b) => ({ ...b, expectations: b.expectations.reverse() })),
      'another order',
    ],
    ['a stage without a brief', WORDS.briefs.filter((b) => b.stage !== 'rollback'), 'rollback: no brief'],
    ['a brief under another title', edit('decide', (b) => ({ ...b, title: 'Decision' })), 'title Decision'],
  ])('differences: %s', (_name, briefs, says) => {
    expect(differences(briefs, SCENARIOS).join('\n')).toContain(says);
  });

  it('differences: a checker expectation the briefs do not have', () => {
    const [first, ...rest] = SCENARIOS;
    if (first === undefined) throw new Error('no scenario');
    const more = {
      ...first,
      expectations: [...first.expectations, { ...first.expectations[0], stage: 'case-lookup', text: 'new' }],
    };
    expect(differences(WORDS.briefs, [more as Scenario, ...rest])).toEqual([
      `case-lookup: the brief lacks "${first.stimulus}: new"`,
    ]);
  });

  it.each([
    ['an n8n expression', '{{ $json.body.user }}'],
    ['a node reference', "$('Validate').first()"],
    ['code', 'items.map((i) => i.json)'],
    ['node JSON', '{"nodes": [{"type": "n8n-nodes-base.webhook"}]}'],
  ])('solutionIn: a brief holding %s', (_name, text) => {
    const broken = edit('validate', (b) => ({ ...b, goal: `${b.goal} ${text}` }));
    expect(solutionIn(broken)).toHaveLength(1);
  });
});
