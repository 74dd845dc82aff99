/** The console page's HTML shell; /console.js draws everything dynamic in it. */
import { html } from 'hono/html';
import { CHECK_STAGES } from './check-view.js';

/**
 * The page's shell. Everything dynamic is drawn by /console.js from /api/events and /api/stages; no inline
 * script or style (the CSP forbids both). The token is in a meta tag for the page's own POSTs. Without
 * starters (LAB_STARTERS=off) the Add a starter control is not on the page at all.
 */
export function renderPage(token: string, options: { starters: boolean } = { starters: true }) {
  const starter = options.starters
    ? html`
        <button id="starter-add" type="button" title="the guide's workflow up to the stage before the chosen one, added unpublished to your editor">Add a starter</button>`
    : '';
  const starterOutput = options.starters
    ? html`
      <p class="meta note">A <b>starter</b> is the workflow complete up to the stage before the chosen one,
        added to your editor <i>unpublished</i>; your own workflows are not touched. To go on from it,
        unpublish your own workflow and publish the starter.</p>
      <p id="starter-status" class="check-status" role="status"></p>
      <ol id="starter-lines" class="feed mono check-lines" hidden></ol>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="console-token" content="${token}">
<title>SOAR lab console</title>
<link rel="stylesheet" href="/console.css">
<script src="/console.js" defer></script>
</head>
<body>
<header class="top">
  <h1>SOAR lab console</h1>
  <nav class="pills"><a class="pill link" href="/fields">Mock API fields</a></nav>
  <div class="pills" id="health">
    <span class="pill" id="conn" data-state="connecting">connecting…</span>
    <span class="pill">case mode <b id="case-mode">–</b></span>
    <span class="pill">service clock <b id="clock">–</b></span>
    <span class="pill">cases <b id="count-cases">–</b></span>
    <span class="pill">notifications <b id="count-notifications">–</b></span>
    <span class="pill">blocked <b id="count-blocklist">–</b></span>
  </div>
</header>
<p id="message" class="message" role="status" aria-live="polite"></p>
<main class="grid">
  <section class="card wide" id="approvals-card">
    <div class="card-head">
      <h2>Approval requests</h2>
      <label class="approver">Approver <input id="approver" maxlength="64" value="trainee" autocomplete="off"></label>
    </div>
    <div id="approvals"><p class="empty">No approval requests.</p></div>
  </section>
  <section class="card wide" id="runs-card" hidden>
    <h2>Your runs <small>each run of your workflow explained as it ends, newest first</small></h2>
    <p id="runs-trouble" class="runs-trouble" role="status" hidden></p>
    <div id="runs" class="runs"></div>
  </section>
  <section class="card">
    <h2>Blocklist <small>time left on the service clock</small></h2>
    <table><thead><tr><th>IP</th><th>event</th><th>expires</th><th>left</th></tr></thead>
    <tbody id="blocklist"></tbody></table>
    <h3>History</h3>
    <table><thead><tr><th>IP</th><th>event</th><th>removed</th><th>why</th></tr></thead>
    <tbody id="history"></tbody></table>
  </section>
  <section class="card">
    <h2>Controls</h2>
    <div class="controls">
      <div class="row"><span class="label">Case connector</span>
        <select id="mode"><option>healthy</option><option>failed</option><option>fail_next_write</option></select>
        <button id="set-mode" type="button">Set</button></div>
      <div class="row"><span class="label">Move the clock</span>
        <button class="clock" data-minutes="1" type="button">+1 min</button>
        <button class="clock" data-minutes="5" type="button">+5 min</button>
        <button class="clock" data-minutes="11" type="button">+11 min</button>
        <button class="clock" data-minutes="60" type="button">+1 h</button></div>
      <div class="row"><span class="label">Send a test alert</span>
        <button class="alert" data-kind="positive" type="button">positive</button>
        <button class="alert" data-kind="low_confidence" type="button">low confidence</button>
        <button class="alert" data-kind="invalid" type="button">invalid</button></div>
      <div class="row"><span class="label">Between exercises</span>
        <button id="reset" class="danger" type="button">Reset…</button>
        <button id="reset-confirm" class="danger solid" type="button" hidden>Yes, clear everything</button></div>
    </div>
    <div class="controls check-control">
      <div class="row"><span class="label">Check</span>
        <select id="check-stage" aria-label="stage to check">${CHECK_STAGES.map(
          (stage) => html`<option${stage === 'all' ? ' selected' : ''}>${stage}</option>`,
        )}</select>
        <button id="check-run" class="solid" type="button">Check</button>${starter}</div>
      <div class="row scope" role="radiogroup" aria-label="what to check"><span class="label"></span>
        <label><input type="radio" name="check-scope" value="up-to" checked> everything up to it</label>
        <label title="quicker: for a rerun once the stages before it pass"><input type="radio" name="check-scope" value="only"> this stage on its own</label></div>
      <div id="stage-brief" class="stage-brief"></div>
      <p class="meta note">A check sends its own alerts to your published workflow, to the stage and every
        stage before it (or to that stage alone), and
        <b>clears the four systems before every alert it sends</b>: the cases, notifications, blocklist and
        journal you see here. One check at a time; <i>all</i> takes a few minutes.</p>
      <p id="check-status" class="check-status" role="status"></p>
      <div id="check-output" hidden><ol id="check-lines" class="feed mono check-lines"></ol></div>${starterOutput}
    </div>
    <div id="check"></div>
  </section>
  <section class="card wide">
    <h2>Cases <small>click a row for the full record</small></h2>
    <table class="cases"><thead><tr><th>event</th><th>final action</th><th>result</th><th>approver</th>
      <th>verification</th><th>expiry</th><th>rollback</th><th>rev</th><th>changed</th></tr></thead>
    <tbody id="cases"></tbody></table>
  </section>
  <section class="card">
    <h2>Notifications <small>newest first</small></h2>
    <ol id="notifications" class="feed"></ol>
  </section>
  <section class="card">
    <h2>Journal <small>requests the mock API received, newest first</small></h2>
    <ol id="journal" class="feed mono"></ol>
  </section>
</main>
<footer class="foot" id="source"></footer>
</body>
</html>`;
}
