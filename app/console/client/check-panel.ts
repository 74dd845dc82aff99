/**
 * The Check control and the Last stage check panel: the chosen stage's brief, the checker's run as it
 * goes, then its report; and the Add a starter control beside Check.
 */
import { checkScope } from '../check-scope.js';
import type { CheckLine, CheckRunView, StagesView } from '../check-view.js';
import { $, h, input, time } from './dom.js';

/** A field of a loosely read record (the report is shown even when it is not the current schema's). */
function field(record: unknown, key: string): unknown {
  return record !== null && typeof record === 'object'
    ? Object.entries(record).find(([k]) => k === key)?.[1]
    : undefined;
}
const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The report's scope: its `only` when it says, else read from its stages (on its own: the one stage judged
 * is the one asked for; a check of everything up to a stage starts at the first, webhook, where the two
 * are one and the same). */
function scopeOf(check: unknown): string | undefined {
  const requested = text(field(check, 'requested'));
  if (requested === undefined) return undefined;
  const said = field(check, 'only');
  const judged = list(field(check, 'stages')).map((s) => text(field(s, 'stage')));
  const only =
    typeof said === 'boolean'
      ? said
      : requested !== 'webhook' && judged.length > 0 && judged.every((stage) => stage === requested);
  return checkScope(requested, only);
}

/** An address the page may link to: http(s) only, so a report can never make the page run a script. */
function webAddress(v: unknown): string | null {
  const raw = text(v);
  if (raw === undefined) return null;
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * The run a FAIL or UNJUDGED line is about (the report's `run`): the node where it went wrong, a link that
 * opens that run in the editor in a new tab (the trainee is signed in there), and why in one line. Nothing
 * when the report has no run for it.
 */
function runLines(run: unknown): HTMLElement[] {
  if (run === null || typeof run !== 'object') return [];
  const node = text(field(run, 'node'));
  const status = text(field(run, 'status'));
  const execution = text(field(run, 'execution_id'));
  const href = webAddress(field(run, 'url'));
  const why = text(field(run, 'why'));
  const parts: (Node | string)[] = [];
  if (node) parts.push('at node ', h('b', { class: 'node', text: node }));
  if (href !== null) {
    if (parts.length) parts.push(' · ');
    const label = execution ? `open run ${execution} in n8n` : 'open the run in n8n';
    parts.push(h('a', { class: 'run-link', href, target: '_blank', rel: 'noopener', text: label }));
    if (status) parts.push(` (${status})`);
  } else if (text(field(run, 'url'))) {
    // Not a web address: shown, never linked.
    parts.push(
      `${parts.length ? ' · ' : ''}run: `,
      h('span', { class: 'mono', text: String(field(run, 'url')) }),
    );
  }
  const out: HTMLElement[] = [];
  if (parts.length) out.push(h('div', { class: 'run' }, ...parts));
  if (why) out.push(h('div', { class: 'why', text: why }));
  return out;
}

// The stage checker's report (app/check-report/report.ts: passed, requested, stages[{stage, status,
// counts}], results[{stage, expectation, status, hint, detail, run}]), read loosely.
export function renderCheck(check: unknown): void {
  const box = $('check');
  box.replaceChildren();
  if (!check || typeof check !== 'object') return;
  const passed = field(check, 'passed');
  const verdict =
    passed === true
      ? 'pass'
      : passed === false
        ? 'fail'
        : (text(field(check, 'verdict')) ?? text(field(check, 'status')) ?? '');
  const finished = text(field(check, 'finished_at'));
  box.append(
    h('h3', { text: `Last stage check${verdict ? `: ${verdict}` : ''}` }),
    h('p', {
      class: 'meta',
      text: [
        text(field(check, 'target')),
        scopeOf(check),
        finished && `finished ${time(finished)}`,
        text(field(check, 'unreadable')),
      ]
        .filter(Boolean)
        .join(' · '),
    }),
  );
  const out = h('ul', { class: 'checks' });
  const stages = list(field(check, 'stages'));
  const results = list(field(check, 'results'));
  for (const it of (stages.length ? stages : results).slice(0, 40)) {
    const name = String(
      field(it, 'stage') ?? field(it, 'name') ?? field(it, 'expectation') ?? JSON.stringify(it).slice(0, 40),
    );
    const v = String(field(it, 'status') ?? field(it, 'verdict') ?? '?');
    const c = field(it, 'counts');
    const unjudged = field(c, 'unjudged');
    const counts = c
      ? ` (${field(c, 'pass')} pass, ${field(c, 'fail')} fail${unjudged ? `, ${unjudged} unjudged` : ''})`
      : '';
    out.append(h('li', { class: `verdict-${v}` }, h('b', { text: v }), ` ${name}${counts}`));
  }
  // Each failed expectation, then each unjudged one: what to change, what was wanted against what came
  // (labelled as the terminal labels it, app/check/run-check.ts), and the run it is about.
  const open = [
    ...results.filter((r) => field(r, 'status') === 'fail').slice(0, 10),
    ...results.filter((r) => field(r, 'status') === 'unjudged').slice(0, 5),
  ];
  for (const r of open) {
    const hint = field(r, 'hint');
    const detail = text(field(r, 'detail'));
    const status = String(field(r, 'status'));
    out.append(
      h(
        'li',
        { class: `hint ${status}` },
        h('span', {
          class: 'meta',
          text: `${String(field(r, 'stage'))}${status === 'fail' ? '' : ' (unjudged)'}: `,
        }),
        String(field(r, 'expectation') ?? '') + (hint ? ` → ${String(hint)}` : ''),
        ...(detail ? [h('div', { class: 'mismatch mono', text: `mismatch: ${detail}` })] : []),
        ...runLines(field(r, 'run')),
      ),
    );
  }
  box.append(out);
}

/** The two choices of what a check covers: everything up to the stage, or the stage on its own. */
function scopeRadios(): HTMLInputElement[] {
  return [...document.querySelectorAll<HTMLInputElement>('input[name="check-scope"]')];
}
/** true: the chosen stage on its own (the checker's --only); never for all. */
export function checkOnly(stage: string): boolean {
  return stage !== 'all' && scopeRadios().some((r) => r.value === 'only' && r.checked);
}
/** `all` has no "on its own": that choice is off (and the other one chosen) while all is chosen. */
function fitScope(stage: string): void {
  for (const radio of scopeRadios()) {
    if (radio.value !== 'only') continue;
    radio.disabled = stage === 'all';
    if (stage === 'all' && radio.checked) {
      radio.checked = false;
      for (const r of scopeRadios()) if (r.value === 'up-to') r.checked = true;
    }
  }
}

/** The Check control: the run's state, and its lines as they come (a line event, or the whole run). */
let shownLines = 0;
export function renderRun(run: CheckRunView): void {
  const button = $('check-run');
  const stage = input('check-stage');
  const status = $('check-status');
  if (button instanceof HTMLButtonElement) button.disabled = run.running || run.unavailable !== null;
  stage.disabled = run.running || run.unavailable !== null;
  for (const radio of scopeRadios())
    radio.disabled = stage.disabled || (radio.value === 'only' && stage.value === 'all');
  $('check-output').hidden = run.line_count === 0 && !run.running;
  if (run.unavailable !== null) {
    status.textContent = run.unavailable;
    status.dataset.state = 'unavailable';
  } else if (run.running) {
    status.textContent = `Checking ${checkScope(run.stage ?? 'all', run.only)} (started ${time(run.started_at)})…`;
    status.dataset.state = 'running';
  } else if (run.finished_at) {
    const how = run.stopped ?? (run.exit === '0' ? 'passed' : `did not pass (exit ${run.exit})`);
    status.textContent = `Check of ${checkScope(run.stage ?? 'all', run.only)} finished ${time(run.finished_at)}: ${how}.`;
    status.dataset.state = run.exit === '0' ? 'passed' : 'failed';
  } else {
    status.textContent = '';
    status.dataset.state = 'idle';
  }
  const lines = $('check-lines');
  lines.replaceChildren(...run.lines.map((l) => h('li', { text: l })));
  shownLines = run.line_count;
  lines.scrollTop = lines.scrollHeight;
}
export function addLine(line: CheckLine): void {
  if (line.n <= shownLines) return;
  shownLines = line.n;
  const lines = $('check-lines');
  $('check-output').hidden = false;
  lines.append(h('li', { text: line.text }));
  lines.scrollTop = lines.scrollHeight;
}

/** What GET /api/stages answered: each stage's brief, and the starter control's state. */
let stages: StagesView | null = null;
export function setStages(view: StagesView): void {
  stages = view;
}

/**
 * The chosen stage's brief (app/stages/briefs.ts): what it must do, then each expectation the checker
 * judges, under the alert that exercises it. Also whether Add a starter can be used for it.
 */
export function renderBrief(stage: string): void {
  fitScope(stage);
  const box = $('stage-brief');
  box.replaceChildren();
  if (stages === null) return;
  const brief = stages.briefs.find((b) => b.stage === stage);
  if (brief === undefined) {
    box.append(
      h('p', { class: 'meta', text: 'all: every stage in turn. Choose a stage to see what it must do.' }),
    );
  } else {
    const byWhen = new Map<string, string[]>();
    for (const x of brief.expectations) byWhen.set(x.when, [...(byWhen.get(x.when) ?? []), x.text]);
    box.append(
      h('h3', { text: `What ${brief.title} must do` }),
      h('p', { class: 'goal', text: brief.goal }),
      h(
        'ul',
        { class: 'checks brief' },
        ...[...byWhen].map(([when, texts]) =>
          h(
            'li',
            {},
            h('span', { class: 'meta', text: `the checker sends: ${when}` }),
            h('ul', {}, ...texts.map((t) => h('li', { text: t }))),
          ),
        ),
      ),
    );
  }
  const button = document.getElementById('starter-add');
  if (!(button instanceof HTMLButtonElement)) return;
  const starter = stages.starter.stages.find((s) => s.stage === stage);
  const why =
    stages.starter.unavailable ??
    (starter !== undefined
      ? null
      : stage === 'all'
        ? 'Choose a stage: a starter is for one stage.'
        : `${stage} is the first stage: there is nothing before it to start from.`);
  button.disabled = why !== null;
  button.title = why ?? `Adds "${starter?.name}" to your editor, unpublished.`;
}

/** What Add a starter answered: its lines (one per workflow added or updated), or why not. */
export function renderStarter(
  stage: string,
  answer: { ok?: boolean; lines?: string[]; message?: string; error?: { message?: string } },
): void {
  const status = $('starter-status');
  const lines = $('starter-lines');
  status.textContent = answer.ok
    ? `Starter for ${stage} added:`
    : `No starter for ${stage}: ${answer.error?.message ?? answer.message ?? 'refused'}`;
  status.dataset.state = answer.ok ? 'passed' : 'failed';
  lines.replaceChildren(...(answer.lines ?? []).map((l) => h('li', { text: l })));
  lines.hidden = (answer.lines ?? []).length === 0;
}
