/**
 * The class as one page, in two modes. The report: a static file a trainer opens or projects, no script,
 * no external file (its style inline). The board: the same page served live, its style and script
 * same-origin files, and its content (renderBoardContent) fetched again by the script every 2 s. Every
 * value is escaped by hono/html.
 */
import { html, raw } from 'hono/html';
import type { ClassReport, LabRow, StageCell } from './class-report.js';
import { RUN_VERDICT_WORD, triesText } from './lab-runs.js';
import { CLASS_PAGE_CSS } from './page-style.js';
import { VERDICT_LABEL } from './render-csv.js';

export type PageMode = 'report' | 'board';

function when(iso: string | null): string {
  if (iso === null) return '';
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A time of the same day as the page: HH:MM; of another day: MM-DD HH:MM (UTC both). */
function short(iso: string, today: string): string {
  return iso.slice(0, 10) === today.slice(0, 10)
    ? iso.slice(11, 16)
    : `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}

function cell(stage: string, c: StageCell, today: string) {
  const label = VERDICT_LABEL[c.verdict];
  const title =
    c.verdict === 'fail' && c.hint !== null
      ? `${stage}: ${c.hint}`
      : c.counts
        ? `${stage}: ${c.counts.pass} passed, ${c.counts.fail} failed, ${c.counts.unjudged} unjudged`
        : `${stage}: ${c.verdict === 'not_checked' ? 'not checked' : label}`;
  const first =
    c.first_passed_at === null
      ? ''
      : html`<span class="first" title="first passed ${when(c.first_passed_at)}">✓ ${short(c.first_passed_at, today)}</span>`;
  return html`<td class="cell ${c.verdict}" title="${title}${c.first_passed_at === null ? '' : `; first passed ${when(c.first_passed_at)}`}" data-stage="${stage}" data-first-passed="${c.first_passed_at ?? ''}"><span class="verdict">${c.verdict === 'not_checked' ? '–' : label}</span>${first}</td>`;
}

function checkedCell(lab: LabRow) {
  const checks =
    lab.checks === 0
      ? ''
      : html`<br><span class="checks">${lab.checks} check${lab.checks === 1 ? '' : 's'}</span>`;
  if (lab.check === 'never') return html`<td class="when">never checked</td>`;
  if (lab.check === 'unreadable') return html`<td class="when">unreadable report${checks}</td>`;
  return html`<td class="when">${when(lab.checked_at)}<br>up to ${lab.requested}${checks}</td>`;
}

/** An address the page may link to: http(s) only (hono/html escapes a value, not what its scheme does). */
function webAddress(raw: string | null): string | null {
  if (raw === null || !URL.canParse(raw)) return null;
  const url = new URL(raw);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
}

/** "stuck at Record since 10:42 (3 checks)": the node the first failure points at, and since when. */
function stuckLine(lab: LabRow, today: string) {
  if (lab.next_node === null || lab.stuck === null) return '';
  const { since, checks } = lab.stuck;
  const href = webAddress(lab.next_run_url);
  const run = href === null ? '' : html` · <a href="${href}" target="_blank" rel="noopener">the run</a>`;
  return html`<div class="stuck" data-since="${since}" title="failing first at ${lab.next_node} in the last ${checks} check${checks === 1 ? '' : 's'}, since ${when(since)}">stuck at <b class="node">${lab.next_node}</b> since ${short(since, today)} <span class="checks">(${checks} check${checks === 1 ? '' : 's'})</span>${run}</div>`;
}

/** The trainee's last run as the tutor explained it: its verdict in a word, the stage it reached, when it
 * started and its link; then how many runs so far and the stages that took tries. Empty without runs. */
function runCell(lab: LabRow, today: string) {
  const runs = lab.runs;
  if (runs === null || (runs.last === null && runs.total === 0)) return html`<td class="run"></td>`;
  const tries = triesText(runs.tries);
  const count = html`<div class="runs"><span class="run-count">${runs.total} run${runs.total === 1 ? '' : 's'}</span>${tries === '' ? '' : html` · tries: <span class="tries">${tries}</span>`}</div>`;
  const last = runs.last;
  if (last === null) return html`<td class="run">${count}</td>`;
  const word =
    last.verdict === 'unmet' && last.unmet_stage !== null
      ? `unmet at ${last.unmet_stage}`
      : RUN_VERDICT_WORD[last.verdict];
  const href = webAddress(last.url);
  const link = href === null ? '' : html` · <a href="${href}" target="_blank" rel="noopener">the run</a>`;
  return html`<td class="run" data-verdict="${last.verdict}" data-started="${last.started_at}"><span class="run-verdict ${last.verdict}">${word}</span><br>reached <b class="reached">${last.reached ?? 'no stage'}</b><br><span class="run-at" title="started ${when(last.started_at)}">${short(last.started_at, today)}</span>${link}${count}</td>`;
}

function nextCell(lab: LabRow, today: string) {
  if (lab.stopped !== null)
    return html`<td class="next"><span class="stage-name">stopped:</span> ${lab.stopped}</td>`;
  if (lab.next_stage !== null)
    return html`<td class="next"><span class="stage-name">${lab.next_stage}:</span> ${lab.next_hint ?? ''}${stuckLine(lab, today)}</td>`;
  if (lab.check !== 'checked') return html`<td class="next"><span class="none">run make check</span></td>`;
  return html`<td class="next"><span class="none">${lab.requested === 'all' ? 'every stage passed' : `passed up to ${lab.requested}; check the next stage`}</span></td>`;
}

function trainee(lab: LabRow) {
  const links =
    lab.editor_url || lab.console_url
      ? html`<div class="links">${lab.editor_url ? html`<a href="${lab.editor_url}">editor</a>` : ''}${lab.editor_url && lab.console_url ? ' · ' : ''}${lab.console_url ? html`<a href="${lab.console_url}">console</a>` : ''}</div>`
      : '';
  const detail = lab.state_detail === null ? '' : html`<div class="state-detail">${lab.state_detail}</div>`;
  return html`<th class="trainee" scope="row">${lab.name}<span class="lab-state ${lab.state}">${lab.state}</span>${detail}${links}</th>`;
}

function notice(report: ClassReport) {
  if (report.states_stale && report.states_at !== null)
    return html`<p class="notice" role="status">The lab states were last written at ${when(report.states_at)}: is make class-board still running?</p>`;
  return '';
}

/** What the board's script swaps in place: everything that follows the header. */
export function renderBoardContent(report: ClassReport) {
  const { totals } = report;
  const today = report.generated_at;
  return html`${notice(report)}
<section class="totals" aria-label="totals">
  <div class="total"><b>${totals.labs}</b>trainees</div>
  <div class="total"><b>${totals.running}</b>labs running</div>
  <div class="total"><b>${totals.checked}</b>checked</div>
  <div class="total"><b>${totals.all_passed}</b>passed every stage</div>
  <div class="total"><b>${totals.checks}</b>checks so far</div>
  <div class="total"><b>${totals.runs}</b>runs explained</div>
</section>
<main>
<table>
<thead><tr><th>trainee</th><th>last check</th><th>last run</th>${report.stages.map((s) => html`<th class="stage" scope="col">${s}</th>`)}<th>next step (first failed stage, its hint, the node it points at)</th></tr></thead>
<tbody>
${report.labs.map(
  (lab) => html`<tr data-lab="${lab.name}" data-state="${lab.state}">
${trainee(lab)}
${checkedCell(lab)}
${runCell(lab, today)}
${report.stages.map((s) => cell(s, lab.stages[s], today))}
${nextCell(lab, today)}
</tr>`,
)}
</tbody>
</table>
<p class="legend">PASS: every expectation of the stage held · FAIL: one did not (hover for its hint) · UNJUDGED: the checker could not judge the stage's expectations · –: not checked (beyond the stage asked for, or not reached) · ✓ 10:42: when the stage first passed, from the lab's check history (UTC) · stuck at Record since 10:42: the trainee's checks have failed first at their node Record since then, in a row (UTC) · last run: the tutor's verdict on the trainee's newest run (as asked; unmet at the first stage that did not do what the exercise asks; waiting for its approval; cannot tell), the furthest stage it reached, when it started (UTC), how many runs so far and, per stage, how many runs stopped short of it (tries).</p>
</main>`;
}

/**
 * The page; on the board over TLS, `caFingerprint` is the class CA's SHA-256 fingerprint, shown with a link
 * to the CA's file (the board serves it) for trainees to trust once per browser.
 */
export function renderHtml(report: ClassReport, mode: PageMode = 'report', caFingerprint?: string) {
  const board = mode === 'board';
  const title = board ? 'Class board · SOAR lab' : 'Class report · SOAR lab';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${
  board
    ? html`<link rel="stylesheet" href="/board.css">
<script src="/board.js" defer></script>`
    : html`<style>${raw(CLASS_PAGE_CSS)}</style>`
}
</head>
<body>
<header>
  <h1>${board ? 'Class board' : 'Class report'}</h1>
  ${
    board
      ? html`<p>Suspicious Login Response · every trainee's checks, as they land</p>
  <p id="live" class="live" data-state="connecting" aria-live="polite">connecting…</p>
  <nav aria-label="exports"><a href="/class.csv">class.csv</a><a href="/class-history.csv">class-history.csv</a><a href="/class.json">class.json</a></nav>
  ${
    caFingerprint === undefined
      ? ''
      : html`<p id="class-ca" class="class-ca">Class CA, to trust once per browser (the trainee guide says how): <a href="/class-ca.pem" download>class-ca.pem</a> · SHA-256 <code>${caFingerprint}</code></p>`
  }`
      : html`<p>Suspicious Login Response · each trainee's last stage check · made ${when(report.generated_at)}</p>`
  }
</header>
<div id="board">
${renderBoardContent(report)}
</div>
</body>
</html>
`;
}
