/** The Check control and the Last stage check panel: the checker's run as it goes, then its report. */
import type { CheckLine, CheckRunView } from '../check-view.js';
import { $, h, input, time } from './dom.js';

/** A field of a loosely read record (the report is shown even when it is not the current schema's). */
function field(record: unknown, key: string): unknown {
  return record !== null && typeof record === 'object'
    ? Object.entries(record).find(([k]) => k === key)?.[1]
    : undefined;
}
const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

// The stage checker's report (app/lab/check-report.ts: passed, stages[{stage, status,
// counts}], results[{stage, expectation, status, hint}]), read loosely.
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
  const requested = text(field(check, 'requested'));
  const finished = text(field(check, 'finished_at'));
  box.append(
    h('h3', { text: `Last stage check${verdict ? `: ${verdict}` : ''}` }),
    h('p', {
      class: 'meta',
      text: [
        text(field(check, 'target')),
        requested && `up to ${requested}`,
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
  for (const r of results.filter((r) => field(r, 'status') === 'fail').slice(0, 10)) {
    const hint = field(r, 'hint');
    out.append(
      h(
        'li',
        { class: 'hint' },
        h('span', { class: 'meta', text: `${String(field(r, 'stage'))}: ` }),
        String(field(r, 'expectation') ?? '') + (hint ? ` → ${String(hint)}` : ''),
      ),
    );
  }
  box.append(out);
}

/** The Check control: the run's state, and its lines as they come (a line event, or the whole run). */
let shownLines = 0;
export function renderRun(run: CheckRunView): void {
  const button = $('check-run');
  const stage = input('check-stage');
  const status = $('check-status');
  if (button instanceof HTMLButtonElement) button.disabled = run.running || run.unavailable !== null;
  stage.disabled = run.running || run.unavailable !== null;
  $('check-output').hidden = run.line_count === 0 && !run.running;
  if (run.unavailable !== null) {
    status.textContent = run.unavailable;
    status.dataset.state = 'unavailable';
  } else if (run.running) {
    status.textContent = `Checking ${run.stage} (started ${time(run.started_at)})…`;
    status.dataset.state = 'running';
  } else if (run.finished_at) {
    const how = run.stopped ?? (run.exit === '0' ? 'passed' : `did not pass (exit ${run.exit})`);
    status.textContent = `Check of ${run.stage} finished ${time(run.finished_at)}: ${how}.`;
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
