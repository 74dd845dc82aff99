/**
 * The class report as one static page a trainer opens or projects: no script, no external file (its
 * style is inline), readable from the back of a room. Every value is escaped by hono/html.
 */
import { html, raw } from 'hono/html';
import type { ClassReport, LabRow, StageCell } from './class-report.js';
import { VERDICT_LABEL } from './render-csv.js';

const STYLE = `
:root { --ink:#1c2430; --muted:#5d6b82; --line:#dfe4ec; --pass:#1d7a46; --pass-bg:#e3f4ea; --fail:#b4232c;
  --fail-bg:#fde8e9; --unj:#7a5a00; --unj-bg:#fff4d6; --none:#8a96a8; --none-bg:#f3f5f8;
  font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--ink); }
body { margin: 0; background: #f4f6f9; }
header { background: #16213a; color: #fff; padding: 18px 28px; display: flex; flex-wrap: wrap; gap: 10px 28px; align-items: baseline; }
header h1 { margin: 0; font-size: 22px; }
header p { margin: 0; color: #cfd8ea; }
.totals { display: flex; gap: 10px; flex-wrap: wrap; padding: 16px 28px 0; }
.total { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 8px 16px; }
.total b { font-size: 22px; display: block; font-variant-numeric: tabular-nums; }
main { padding: 16px 28px 28px; overflow-x: auto; }
table { border-collapse: separate; border-spacing: 0; background: #fff; border: 1px solid var(--line); border-radius: 10px; min-width: 100%; }
th, td { padding: 8px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
thead th { font-size: 12.5px; color: var(--muted); font-weight: 600; white-space: nowrap; position: sticky; top: 0; background: #fff; }
thead th.stage { writing-mode: vertical-rl; transform: rotate(180deg); text-align: left; padding: 10px 6px; height: 110px; }
tbody tr:last-child td, tbody tr:last-child th { border-bottom: 0; }
th.trainee { font-size: 17px; white-space: nowrap; }
.lab-state { display: inline-block; font-size: 12px; font-weight: 600; border-radius: 999px; padding: 1px 9px; margin-left: 6px; vertical-align: middle; }
.lab-state.up { background: var(--pass-bg); color: var(--pass); }
.lab-state.down { background: var(--fail-bg); color: var(--fail); }
.links { font-size: 12.5px; color: var(--muted); font-weight: 400; margin-top: 2px; }
.links a { color: var(--muted); }
td.cell { text-align: center; font-weight: 700; font-size: 11.5px; letter-spacing: .02em; white-space: nowrap; padding: 8px 4px; width: 5.4em; }
td.pass { background: var(--pass-bg); color: var(--pass); }
td.fail { background: var(--fail-bg); color: var(--fail); }
td.unjudged { background: var(--unj-bg); color: var(--unj); }
td.not_checked { background: var(--none-bg); color: var(--none); font-weight: 400; }
td.when { white-space: nowrap; color: var(--muted); font-size: 14px; }
td.next { min-width: 22em; max-width: 40em; font-size: 14px; }
td.next .stage-name { font-weight: 700; color: var(--fail); }
td.next .none { color: var(--muted); font-style: italic; }
tr.down th.trainee { color: var(--muted); }
.legend { color: var(--muted); font-size: 13.5px; margin-top: 12px; }
@media print { body { background: #fff; } header { color: #000; background: #fff; border-bottom: 2px solid #000; } header p { color: #333; } }
`;

function when(iso: string | null): string {
  if (iso === null) return '';
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function cell(stage: string, c: StageCell) {
  const label = VERDICT_LABEL[c.verdict];
  const title =
    c.verdict === 'fail' && c.hint !== null
      ? `${stage}: ${c.hint}`
      : c.counts
        ? `${stage}: ${c.counts.pass} passed, ${c.counts.fail} failed, ${c.counts.unjudged} unjudged`
        : `${stage}: not checked`;
  return html`<td class="cell ${c.verdict}" title="${title}" data-stage="${stage}">${c.verdict === 'not_checked' ? '–' : label}</td>`;
}

function checkedCell(lab: LabRow) {
  if (lab.check === 'never') return html`<td class="when">never checked</td>`;
  if (lab.check === 'unreadable') return html`<td class="when">unreadable report</td>`;
  return html`<td class="when">${when(lab.checked_at)}<br>up to ${lab.requested}</td>`;
}

function nextCell(lab: LabRow) {
  if (lab.stopped !== null)
    return html`<td class="next"><span class="stage-name">stopped:</span> ${lab.stopped}</td>`;
  if (lab.next_stage !== null)
    return html`<td class="next"><span class="stage-name">${lab.next_stage}:</span> ${lab.next_hint ?? ''}</td>`;
  if (lab.check !== 'checked') return html`<td class="next"><span class="none">run make check</span></td>`;
  return html`<td class="next"><span class="none">${lab.requested === 'all' ? 'every stage passed' : `passed up to ${lab.requested}; check the next stage`}</span></td>`;
}

export function renderHtml(report: ClassReport) {
  const { totals } = report;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Class report · SOAR lab</title>
<style>${raw(STYLE)}</style>
</head>
<body>
<header>
  <h1>Class report</h1>
  <p>Suspicious Login Response · each trainee's last stage check · made ${when(report.generated_at)}</p>
</header>
<section class="totals" aria-label="totals">
  <div class="total"><b>${totals.labs}</b>trainees</div>
  <div class="total"><b>${totals.up}</b>labs up</div>
  <div class="total"><b>${totals.checked}</b>checked</div>
  <div class="total"><b>${totals.all_passed}</b>passed every stage</div>
</section>
<main>
<table>
<thead><tr><th>trainee</th><th>last check</th>${report.stages.map((s) => html`<th class="stage" scope="col">${s}</th>`)}<th>next step (first failed stage and its hint)</th></tr></thead>
<tbody>
${report.labs.map(
  (lab) => html`<tr class="${lab.up ? 'up' : 'down'}" data-lab="${lab.name}">
<th class="trainee" scope="row">${lab.name}<span class="lab-state ${lab.up ? 'up' : 'down'}">${lab.up ? 'up' : 'down'}</span>
${lab.editor_url || lab.console_url ? html`<div class="links">${lab.editor_url ? html`<a href="${lab.editor_url}">editor</a>` : ''}${lab.editor_url && lab.console_url ? ' · ' : ''}${lab.console_url ? html`<a href="${lab.console_url}">console</a>` : ''}</div>` : ''}</th>
${checkedCell(lab)}
${report.stages.map((s) => cell(s, lab.stages[s]))}
${nextCell(lab)}
</tr>`,
)}
</tbody>
</table>
<p class="legend">PASS: every expectation of the stage held · FAIL: one did not (hover for its hint) · UNJUDGED: the checker could not judge the stage's expectations · –: not checked (beyond the stage asked for, or not reached).</p>
</main>
</body>
</html>
`;
}
