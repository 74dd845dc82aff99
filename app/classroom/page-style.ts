/**
 * The class page's style, one for both modes: inline in the report (one self-contained file), served as
 * /board.css by the board (its CSP allows same-origin files only).
 */
export const CLASS_PAGE_CSS = `
:root { --ink:#1c2430; --muted:#5d6b82; --line:#dfe4ec; --pass:#1d7a46; --pass-bg:#e3f4ea; --fail:#b4232c;
  --fail-bg:#fde8e9; --unj:#7a5a00; --unj-bg:#fff4d6; --none:#8a96a8; --none-bg:#f3f5f8;
  font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--ink); }
body { margin: 0; background: #f4f6f9; }
header { background: #16213a; color: #fff; padding: 18px 28px; display: flex; flex-wrap: wrap; gap: 10px 28px; align-items: baseline; }
header h1 { margin: 0; font-size: 22px; }
header p { margin: 0; color: #cfd8ea; }
header nav { margin-left: auto; display: flex; gap: 12px; font-size: 14px; }
header nav a { color: #cfd8ea; }
.live { font-size: 13px; border-radius: 999px; padding: 2px 12px; background: rgba(255,255,255,.12); }
.live[data-state=live] { background: #1d7a46; color: #fff; }
.live[data-state=down] { background: #b4232c; color: #fff; }
.notice { margin: 16px 28px 0; padding: 10px 16px; border-radius: 10px; background: var(--unj-bg); color: var(--unj); font-weight: 600; }
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
.lab-state.running { background: var(--pass-bg); color: var(--pass); }
.lab-state.stopped { background: var(--none-bg); color: var(--muted); }
.lab-state.broken { background: var(--fail-bg); color: var(--fail); }
.lab-state.absent { background: #fff; color: var(--none); border: 1px dashed var(--none); }
.lab-state.unknown { background: var(--unj-bg); color: var(--unj); }
.state-detail { font-size: 12.5px; color: var(--fail); font-weight: 400; white-space: normal; max-width: 18em; }
.links { font-size: 12.5px; color: var(--muted); font-weight: 400; margin-top: 2px; }
.links a { color: var(--muted); }
td.cell { text-align: center; font-weight: 700; font-size: 11.5px; letter-spacing: .02em; white-space: nowrap; padding: 8px 4px; width: 5.4em; }
td.cell .first { display: block; font-weight: 400; font-size: 11px; color: var(--pass); margin-top: 2px; }
td.pass { background: var(--pass-bg); color: var(--pass); }
td.fail { background: var(--fail-bg); color: var(--fail); }
td.unjudged { background: var(--unj-bg); color: var(--unj); }
td.not_checked { background: var(--none-bg); color: var(--none); font-weight: 400; }
td.when { white-space: nowrap; color: var(--muted); font-size: 14px; }
td.run { color: var(--muted); font-size: 14px; min-width: 8em; max-width: 16em; }
td.run .run-verdict { font-weight: 700; white-space: nowrap; }
td.run .run-verdict.as-asked { color: var(--pass); }
td.run .run-verdict.unmet { color: var(--fail); }
td.run .run-verdict.waiting, td.run .run-verdict.stopped, td.run .run-verdict.cannot-tell { color: var(--unj); }
td.run .reached { color: var(--ink); }
td.run a { color: var(--muted); }
td.run .runs { font-size: 12.5px; margin-top: 2px; }
td.next { min-width: 22em; max-width: 40em; font-size: 14px; }
td.next .stage-name { font-weight: 700; color: var(--fail); }
td.next .none { color: var(--muted); font-style: italic; }
td.next .stuck { margin-top: 4px; color: var(--fail); font-size: 13.5px; }
td.next .stuck .checks { color: var(--muted); font-size: 12.5px; }
td.next .stuck a { color: var(--muted); }
tr:not([data-state=running]) th.trainee { color: var(--muted); }
.legend { color: var(--muted); font-size: 13.5px; margin-top: 12px; }
@media print { body { background: #fff; } header { color: #000; background: #fff; border-bottom: 2px solid #000; } header p { color: #333; } }
`;
