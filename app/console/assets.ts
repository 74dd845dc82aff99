/**
 * The page's script and style, served as /console.js and /console.css (the CSP allows only same-origin
 * files). Plain browser JavaScript with no build step; kept here so `tsc` carries it into dist/ and the
 * image needs nothing else. It draws /api/events' views with textContent only (never innerHTML).
 */
export const CLIENT_JS = `'use strict';
(function () {
  var token = document.querySelector('meta[name="console-token"]').content;
  var view = null;
  var openCases = new Set();
  var $ = function (id) { return document.getElementById(id); };

  function h(tag, attrs) {
    var el = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === 'text') el.textContent = attrs[k];
      else if (k === 'class') el.className = attrs[k];
      else if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), attrs[k]);
      else if (attrs[k] !== undefined && attrs[k] !== null) el.setAttribute(k, attrs[k]);
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined) continue;
      el.append(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return el;
  }
  function fill(el, nodes, empty, cols) {
    el.replaceChildren();
    if (nodes.length === 0) {
      el.append(cols ? h('tr', {}, h('td', { colspan: String(cols), class: 'empty', text: empty })) : h('li', { class: 'empty', text: empty }));
    } else nodes.forEach(function (n) { el.append(n); });
  }
  function serviceNow() { return Date.now() + (view ? view.service_offset_ms : 0); }
  function time(iso) { return iso ? iso.slice(11, 19) : '–'; }
  function left(ms) {
    if (ms <= 0) return 'expired';
    var s = Math.ceil(ms / 1000), m = Math.floor(s / 60);
    return m + ':' + String(s % 60).padStart(2, '0');
  }
  function brief(v) {
    if (v === undefined || v === null) return '–';
    if (typeof v !== 'object') return String(v);
    var keys = ['status', 'blocked', 'verified', 'result', 'state', 'expires_at'];
    for (var i = 0; i < keys.length; i++) {
      var x = v[keys[i]];
      if (x === undefined) continue;
      return keys[i] + ': ' + (typeof x === 'string' && /^[0-9]{4}-[0-9]{2}-[0-9]{2}T/.test(x) ? time(x) : String(x));
    }
    return JSON.stringify(v).slice(0, 40);
  }
  function say(text, kind) {
    var m = $('message');
    m.textContent = text;
    m.dataset.kind = kind || 'info';
  }

  async function post(path, body) {
    var res = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-console-token': token },
      body: JSON.stringify(body),
    });
    var json = {};
    try { json = await res.json(); } catch (e) { /* not JSON */ }
    return { status: res.status, json: json };
  }
  async function act(label, path, body) {
    say(label + '…', 'info');
    try {
      var r = await post(path, body);
      var j = r.json || {};
      var a = j.answer || {};
      var text = j.message || (j.error && j.error.message) || (a.error && a.error.message) ||
        (a.now ? 'the service clock is now ' + a.now.slice(0, 19).replace('T', ' ') :
        a.reset ? 'everything cleared, the connector healthy, the clock back to real time' :
        a.case_mode ? 'the case connector is now ' + a.case_mode + ' (was ' + a.previous_mode + ')' :
        'answered ' + (j.status || r.status));
      say(label + ': ' + text, j.ok ? 'ok' : 'bad');
      return j;
    } catch (e) {
      say(label + ': the console did not answer (' + e.message + ')', 'bad');
      return {};
    }
  }

  function renderApprovals(list) {
    var nodes = list.map(function (a) {
      var d = a.decision;
      var state = a.status === 'pending' ? 'waiting for a decision' :
        a.status === 'answered' ? (d.decision === 'approve' ? 'approved' : 'rejected') + ' by ' + d.approver :
        'closed: the case is written' + (d ? ' (' + d.decision + 'd by ' + d.approver + ')' : '');
      var buttons = a.status === 'pending' ? h('div', { class: 'decide' },
        h('button', { class: 'approve solid', type: 'button', onclick: function () { decide(a, 'approve'); } }, 'Approve'),
        h('button', { class: 'reject', type: 'button', onclick: function () { decide(a, 'reject'); } }, 'Reject')) : null;
      return h('article', { class: 'approval ' + a.status, 'data-event': a.event_id || '' },
        h('div', { class: 'approval-head' }, h('strong', { text: a.subject }), h('span', { class: 'tag ' + a.status, text: state })),
        h('p', { text: a.message }),
        h('p', { class: 'meta', text: 'event ' + (a.event_id || '–') + ' · requested ' + time(a.accepted_at) }),
        buttons);
    });
    var box = $('approvals');
    box.replaceChildren();
    if (nodes.length === 0) box.append(h('p', { class: 'empty', text: 'No approval requests.' }));
    nodes.forEach(function (n) { box.append(n); });
  }
  async function decide(a, decision) {
    var approver = $('approver').value.trim();
    if (!approver) { say('Type an approver name first.', 'bad'); $('approver').focus(); return; }
    localStorage.setItem('approver', approver);
    document.querySelectorAll('.approval button').forEach(function (b) { b.disabled = true; });
    await act((decision === 'approve' ? 'Approve ' : 'Reject ') + (a.event_id || ''), '/api/approve',
      { resume_url: a.resume_url, decision: decision, approver: approver });
    document.querySelectorAll('.approval button').forEach(function (b) { b.disabled = false; });
  }

  function renderCases(cases) {
    var rows = [];
    cases.slice().sort(function (a, b) { return a.updated_at < b.updated_at ? 1 : -1; }).forEach(function (c) {
      var open = openCases.has(c.event_id);
      rows.push(h('tr', { class: 'case-row' + (open ? ' open' : ''), 'data-event': c.event_id, tabindex: '0',
        onclick: function () { open ? openCases.delete(c.event_id) : openCases.add(c.event_id); renderCases(view.state.cases); } },
        h('td', { class: 'mono', text: c.event_id }), h('td', { text: brief(c.final_action) }),
        h('td', { class: 'result', text: brief(c.result) }), h('td', { class: 'approver', text: brief(c.approver) }),
        h('td', { text: brief(c.verification) }), h('td', { text: brief(c.expiry) }), h('td', { text: brief(c.rollback) }),
        h('td', { text: String(c.revision) }), h('td', { text: time(c.updated_at) })));
      if (open) rows.push(h('tr', { class: 'case-detail' }, h('td', { colspan: '9' }, h('pre', { text: JSON.stringify(c, null, 2) }))));
    });
    fill($('cases'), rows, 'No cases yet.', 9);
  }

  // The stage checker's report (app/acceptance/check/report-schema.ts on the checker branch: passed,
  // stages[{stage, status, counts}], results[{stage, expectation, status, hint}]), read loosely.
  function renderCheck(check) {
    var box = $('check');
    box.replaceChildren();
    if (!check || typeof check !== 'object') return;
    var verdict = check.passed === true ? 'pass' : check.passed === false ? 'fail' : (check.verdict || check.status || '');
    box.append(h('h3', { text: 'Last stage check' + (verdict ? ': ' + verdict : '') }),
      h('p', { class: 'meta', text: [check.target, check.requested && 'up to ' + check.requested,
        check.finished_at && 'finished ' + time(check.finished_at), check.unreadable].filter(Boolean).join(' · ') }));
    var list = h('ul', { class: 'checks' });
    var stages = Array.isArray(check.stages) ? check.stages : [];
    var results = Array.isArray(check.results) ? check.results : [];
    var items = stages.length ? stages : results;
    items.slice(0, 40).forEach(function (it) {
      var name = String(it.stage || it.name || it.expectation || JSON.stringify(it).slice(0, 40));
      var v = String(it.status || it.verdict || '?');
      var c = it.counts;
      list.append(h('li', { class: 'verdict-' + v }, h('b', { text: v }), ' ' + name +
        (c ? ' (' + c.pass + ' pass, ' + c.fail + ' fail' + (c.unjudged ? ', ' + c.unjudged + ' unjudged' : '') + ')' : '')));
    });
    results.filter(function (r) { return r.status === 'fail'; }).slice(0, 10).forEach(function (r) {
      list.append(h('li', { class: 'hint' }, h('span', { class: 'meta', text: String(r.stage) + ': ' }),
        String(r.expectation || '') + (r.hint ? ' → ' + r.hint : '')));
    });
    box.append(list);
  }

  function render() {
    var s = view.state;
    $('conn').textContent = view.error ? 'mock API unreachable' : 'live';
    $('conn').dataset.state = view.error ? 'down' : 'live';
    $('source').textContent = 'mock API: ' + view.source + (view.error ? ' · ' + view.error : '') + ' · view ' + view.version;
    renderApprovals(view.approvals);
    renderCheck(view.check);
    if (!s) return;
    $('case-mode').textContent = s.case_mode;
    $('case-mode').dataset.mode = s.case_mode;
    var hl = view.health;
    var cap = function (n, k) { return hl && hl.limits && hl.limits[k] ? n + ' / ' + hl.limits[k] : String(n); };
    $('count-cases').textContent = cap(s.cases.length, 'cases');
    $('count-notifications').textContent = cap(s.notifications.length, 'notifications');
    $('count-blocklist').textContent = String(s.blocklist.length);
    fill($('blocklist'), s.blocklist.map(function (b) {
      return h('tr', { class: 'block', 'data-ip': b.ip }, h('td', { class: 'mono', text: b.ip }),
        h('td', { class: 'mono', text: b.event_id }), h('td', { text: time(b.expires_at) }),
        h('td', { class: 'countdown', 'data-expires': b.expires_at }));
    }), 'Nothing blocked.', 4);
    fill($('history'), s.blocklist_history.slice().reverse().map(function (b) {
      return h('tr', { class: 'removed', 'data-ip': b.ip }, h('td', { class: 'mono', text: b.ip }),
        h('td', { class: 'mono', text: b.event_id }), h('td', { text: time(b.removed_at) }),
        h('td', { class: 'why ' + b.removed_reason, text: b.removed_reason }));
    }), 'No history.', 4);
    renderCases(s.cases);
    fill($('notifications'), s.notifications.slice().reverse().map(function (n) {
      return h('li', { class: n.channel === 'approval' ? 'approval-note' : '' },
        h('span', { class: 'meta', text: time(n.accepted_at) + ' · ' + (n.channel || 'notify') + ' → ' + (n.recipient || '–') }),
        h('span', { text: n.subject || n.message }));
    }), 'No notifications.');
    fill($('journal'), s.journal.slice().reverse().slice(0, 100).map(function (j) {
      return h('li', { class: j.status === 404 ? 'miss' : j.status >= 400 ? 'refused' : '' },
        h('span', { class: 'meta', text: time(j.at) }), ' ' + j.method + ' ' + j.path + ' ', h('b', { text: String(j.status) }));
    }), 'No requests yet.');
    tick();
  }

  function tick() {
    var now = serviceNow();
    $('clock').textContent = new Date(now).toISOString().slice(0, 19).replace('T', ' ');
    document.querySelectorAll('.countdown').forEach(function (el) {
      var ms = Date.parse(el.dataset.expires) - now;
      el.textContent = left(ms);
      el.dataset.urgent = String(ms < 60000);
    });
  }

  function connect() {
    var es = new EventSource('/api/events');
    es.addEventListener('state', function (e) { view = JSON.parse(e.data); render(); });
    es.onerror = function () { $('conn').textContent = 'reconnecting…'; $('conn').dataset.state = 'down'; };
  }

  document.addEventListener('DOMContentLoaded', function () {
    var saved = localStorage.getItem('approver');
    if (saved) $('approver').value = saved;
    $('set-mode').addEventListener('click', function () { act('Case mode ' + $('mode').value, '/api/case-mode', { mode: $('mode').value }); });
    document.querySelectorAll('button.clock').forEach(function (b) {
      b.addEventListener('click', function () { act('Clock +' + b.dataset.minutes + ' min', '/api/clock', { advance_minutes: Number(b.dataset.minutes) }); });
    });
    document.querySelectorAll('button.alert').forEach(function (b) {
      b.addEventListener('click', async function () {
        var j = await act('Test alert (' + b.dataset.kind + ')', '/api/alert', { kind: b.dataset.kind });
        if (j.ok) say('Test alert (' + b.dataset.kind + ') sent as ' + j.event_id + '; the workflow answered ' + j.status + '.', 'ok');
      });
    });
    var timer = null;
    $('reset').addEventListener('click', function () {
      $('reset-confirm').hidden = false;
      clearTimeout(timer);
      timer = setTimeout(function () { $('reset-confirm').hidden = true; }, 5000);
    });
    $('reset-confirm').addEventListener('click', async function () {
      $('reset-confirm').hidden = true;
      openCases.clear();
      await act('Reset', '/api/reset', { confirm: true });
    });
    connect();
    setInterval(function () { if (view) tick(); }, 1000);
  });
})();
`;

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
