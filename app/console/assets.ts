/**
 * The pages' scripts and the console's style, served as /console.js, /login.js and /console.css (the CSP
 * allows only same-origin files). The scripts are app/console/client/ bundled by esbuild
 * (app/console/client-build.ts): the files `npm run build` writes beside this module in dist/, or, run
 * from source, bundled in memory once.
 */
import { readFile } from 'node:fs/promises';
import type { ClientScript } from './client-build.js';

const scripts = new Map<ClientScript, Promise<string>>();

/** The console page's script (the default) or the login page's. */
export function clientScript(name: ClientScript = 'console'): Promise<string> {
  const cached = scripts.get(name);
  if (cached !== undefined) return cached;
  const script = readFile(new URL(`./${name}.js`, import.meta.url), 'utf8').catch(async (err: unknown) => {
    if (!import.meta.url.endsWith('.ts')) throw err;
    const { bundleClient } = await import('./client-build.js');
    return bundleClient(name);
  });
  scripts.set(name, script);
  // A failed read or bundle is tried again on the next request.
  script.catch(() => scripts.delete(name));
  return script;
}

export const CLIENT_CSS = `:root {
  --bg: #f4f6f9; --card: #fff; --ink: #1c2430; --muted: #65738a; --line: #e2e7ef;
  --accent: #2457c5; --ok: #1d7a46; --bad: #b4232c; --warn: #a86400;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
  color: var(--ink); background: var(--bg);
}
* { box-sizing: border-box; }
body { margin: 0; }
.top { display: flex; flex-wrap: wrap; align-items: center; gap: 12px 24px; padding: 14px 24px;
  background: #16213a; color: #fff; }
.top h1 { font-size: 19px; margin: 0; letter-spacing: .02em; }
.pills { display: flex; flex-wrap: wrap; gap: 8px; }
.pill { background: rgba(255,255,255,.1); border-radius: 999px; padding: 3px 12px; font-size: 13px; color: #cfd8ea; }
.pill b { color: #fff; font-variant-numeric: tabular-nums; }
#conn[data-state=live] { background: #1d7a46; color: #fff; }
#conn[data-state=down] { background: #b4232c; color: #fff; }
#case-mode[data-mode=failed], #case-mode[data-mode=fail_next_write] { color: #ffb3b8; }
.message { margin: 12px 24px 0; min-height: 1.5em; font-weight: 500; }
.message[data-kind=ok] { color: var(--ok); }
.message[data-kind=bad] { color: var(--bad); }
.grid { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 16px; padding: 12px 24px 24px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 14px 18px;
  box-shadow: 0 1px 2px rgba(20,30,50,.05); min-width: 0; }
.wide { grid-column: 1 / -1; }
h2 { font-size: 16px; margin: 0 0 10px; }
h3 { font-size: 14px; margin: 16px 0 6px; color: var(--muted); }
h2 small { font-weight: 400; color: var(--muted); font-size: 12px; margin-left: 6px; }
.card-head { display: flex; justify-content: space-between; align-items: baseline; gap: 12px; }
table { width: 100%; border-collapse: collapse; font-size: 13.5px; }
th { text-align: left; font-weight: 600; color: var(--muted); font-size: 12px; border-bottom: 1px solid var(--line); padding: 4px 6px; }
td { padding: 5px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
td.mono { overflow-wrap: anywhere; }
td.empty, li.empty, p.empty { color: var(--muted); font-style: italic; }
.mono, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12.5px; }
.countdown { font-variant-numeric: tabular-nums; font-weight: 600; color: var(--accent); }
.countdown[data-urgent=true] { color: var(--warn); }
.why.expired { color: var(--warn); } .why.unblocked { color: var(--accent); }
.case-row { cursor: pointer; } .case-row:hover, .case-row.open { background: #f0f4fb; }
td.result { font-weight: 600; }
pre { margin: 0; white-space: pre-wrap; background: #f7f9fc; padding: 10px; border-radius: 6px; }
.feed { list-style: none; margin: 0; padding: 0; max-height: 320px; overflow: auto; font-size: 13.5px; }
.feed li { padding: 5px 0; border-bottom: 1px solid var(--line); display: flex; gap: 8px; flex-wrap: wrap; }
.feed li.refused { color: var(--bad); }
.feed li.miss { color: var(--warn); }
.feed li.approval-note { font-weight: 600; }
.meta { color: var(--muted); font-size: 12.5px; }
.approval { border: 1px solid var(--line); border-left: 4px solid var(--muted); border-radius: 8px; padding: 10px 14px; margin-bottom: 10px; }
.approval.pending { border-left-color: var(--warn); background: #fff8ec; }
.approval.answered { border-left-color: var(--accent); }
.approval.closed { border-left-color: var(--ok); opacity: .8; }
.approval p { margin: 6px 0; }
.approval-head { display: flex; justify-content: space-between; gap: 12px; align-items: baseline; }
.tag { font-size: 12px; border-radius: 999px; padding: 1px 10px; background: #eef1f6; color: var(--muted); white-space: nowrap; }
.tag.pending { background: #ffe7c2; color: #7a4a00; }
.tag.closed { background: #dcf2e4; color: var(--ok); }
.decide { display: flex; gap: 8px; margin-top: 8px; }
button, select, input { font: inherit; font-size: 14px; border-radius: 6px; border: 1px solid #c5cedc; padding: 5px 12px; background: #fff; color: var(--ink); }
button { cursor: pointer; } button:hover { border-color: var(--accent); }
button:disabled { opacity: .5; cursor: wait; }
button.solid { background: var(--accent); border-color: var(--accent); color: #fff; }
button.approve.solid { background: var(--ok); border-color: var(--ok); }
button.reject, button.danger { color: var(--bad); }
button.danger.solid { background: var(--bad); border-color: var(--bad); color: #fff; }
.approver input { width: 12em; margin-left: 6px; }
.controls .row { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin-bottom: 10px; }
.controls .label { width: 9.5em; color: var(--muted); font-size: 13px; }
.checks { list-style: none; padding: 0; margin: 0; font-size: 13px; }
.checks .verdict-pass b { color: var(--ok); } .checks .verdict-fail b { color: var(--bad); }
.checks .verdict-unjudged b { color: var(--muted); } .checks li.hint { font-size: 12.5px; padding-left: 1em; }
.checks li.hint .run, .checks li.hint .why { padding-left: 1em; color: var(--muted); overflow-wrap: anywhere; }
.checks li.hint .run .node { color: var(--ink); }
.checks li.hint .run a { color: var(--accent); font-weight: 600; }
.checks li.hint .mismatch { padding-left: 1em; color: var(--bad); overflow-wrap: anywhere; }
.controls .scope label { font-size: 13px; margin-right: 10px; }
.check-control { border-top: 1px solid var(--line); padding-top: 10px; margin-top: 4px; }
.check-control .note { margin: 0 0 6px; }
.check-status { margin: 4px 0; font-weight: 500; min-height: 1.2em; }
.check-status[data-state=running] { color: var(--accent); }
.check-status[data-state=passed] { color: var(--ok); }
.check-status[data-state=failed], .check-status[data-state=unavailable] { color: var(--bad); }
.check-lines { max-height: 220px; font-size: 12px; background: #f7f9fc; border-radius: 6px; padding: 6px 10px; }
.check-lines li { padding: 1px 0; border: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.runs { display: flex; flex-direction: column; gap: 10px; max-height: 640px; overflow: auto; }
.runs-trouble { color: var(--warn); font-weight: 500; margin: 0 0 8px; }
.run-card { border: 1px solid var(--line); border-left: 4px solid var(--muted); border-radius: 8px; padding: 10px 14px; font-size: 13.5px; }
.run-card.as-asked { border-left-color: var(--ok); }
.run-card.unmet { border-left-color: var(--bad); }
.run-card.waiting { border-left-color: var(--warn); background: #fff8ec; }
.run-card p { margin: 4px 0; overflow-wrap: anywhere; }
.run-head { display: flex; flex-wrap: wrap; gap: 4px 8px; align-items: baseline; }
.run-head .run-how { color: var(--muted); }
.run-head .run-tags { margin-left: auto; display: flex; gap: 6px; }
.tag.as-asked { background: #dcf2e4; color: var(--ok); }
.tag.unmet { background: #fde3e4; color: var(--bad); }
.tag.waiting { background: #ffe7c2; color: #7a4a00; }
.run-stages { margin: 4px 0; padding-left: 1.6em; }
.run-stages li { padding: 1px 0; overflow-wrap: anywhere; }
.run-received .label { color: var(--muted); font-size: 12.5px; }
.run-received ul { list-style: none; margin: 2px 0 0; padding: 0 0 0 1em; }
.run-received li { display: flex; flex-wrap: wrap; gap: 8px; }
.run-received .system { color: var(--muted); min-width: 6.5em; }
.run-received .uncertain { color: var(--warn); font-size: 12.5px; }
.run-summary { font-weight: 600; }
.run-unmet { border-top: 1px dashed var(--line); padding-top: 4px; }
.run-unmet .hint { color: var(--ink); }
.run-unmet .mismatch { color: var(--bad); }
.run-unmet .why { color: var(--muted); }
.run-open a { color: var(--accent); font-weight: 600; }
.foot { padding: 0 24px 20px; color: var(--muted); font-size: 12px; }
a.pill.link { color: #fff; text-decoration: none; background: rgba(255,255,255,.18); }
a.pill.link:hover { background: rgba(255,255,255,.3); }
.fields-page p { max-width: 80ch; }
.fields-page .index { columns: 3 16em; padding-left: 1.2em; margin: 8px 0 0; }
.fields-page .op h2 { display: flex; gap: 10px; align-items: baseline; }
.method { font: 600 12px/1 ui-monospace, Menlo, Consolas, monospace; padding: 4px 8px; border-radius: 4px; color: #fff; background: var(--accent); }
.method.post { background: var(--ok); } .method.delete { background: var(--bad); }
table.fields td:first-child { white-space: nowrap; font-weight: 600; }
table.fields, table.answers { margin-bottom: 6px; }
@media (max-width: 900px) { .grid { grid-template-columns: 1fr; } }
`;
