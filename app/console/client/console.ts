/**
 * The console page's script, bundled by app/console/client-build.ts into /console.js. It draws the views
 * /api/events sends with textContent only (never innerHTML) and posts the page's controls with its token.
 * The data it reads are the console's own answers, typed by the declarations the server builds them from.
 */

import { checkScope } from '../check-scope.js';
import type { StagesView } from '../check-view.js';
import type { ApprovalRequest, ConsoleView } from '../view.js';
import {
  addLine,
  checkOnly,
  renderBrief,
  renderCheck,
  renderRun,
  renderStarter,
  setStages,
} from './check-panel.js';
import { $, fill, h, input, say, time } from './dom.js';
import { renderRuns } from './runs-panel.js';

type Case = NonNullable<ConsoleView['state']>['cases'][number];
interface Answer {
  ok?: boolean;
  status?: number;
  message?: string;
  lines?: string[];
  event_id?: string;
  error?: { message?: string };
  answer?: {
    error?: { message?: string };
    now?: string;
    reset?: unknown;
    case_mode?: string;
    previous_mode?: string;
  };
}

const token = document.querySelector<HTMLMetaElement>('meta[name="console-token"]')?.content ?? '';
let view: ConsoleView | null = null;
const openCases = new Set<string>();

const serviceNow = () => Date.now() + (view ? view.service_offset_ms : 0);
function left(ms: number): string {
  if (ms <= 0) return 'expired';
  const s = Math.ceil(ms / 1000);
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, '0')}`;
}
function brief(v: unknown): string {
  if (v === undefined || v === null) return '–';
  if (typeof v !== 'object') return String(v);
  const record: Record<string, unknown> = { ...v };
  for (const key of ['status', 'blocked', 'verified', 'result', 'state', 'expires_at']) {
    const x = record[key];
    if (x === undefined) continue;
    return `${key}: ${typeof x === 'string' && /^[0-9]{4}-[0-9]{2}-[0-9]{2}T/.test(x) ? time(x) : String(x)}`;
  }
  return JSON.stringify(v).slice(0, 40);
}
async function post(path: string, body: unknown): Promise<{ status: number; json: Answer }> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-console-token': token },
    body: JSON.stringify(body),
  });
  let json: Answer = {};
  try {
    json = await res.json();
  } catch {
    // not JSON
  }
  return { status: res.status, json };
}
async function act(label: string, path: string, body: unknown): Promise<Answer> {
  say(`${label}…`, 'info');
  try {
    const r = await post(path, body);
    const j = r.json ?? {};
    const a = j.answer ?? {};
    const text =
      j.message ||
      j.error?.message ||
      a.error?.message ||
      (a.now
        ? `the service clock is now ${a.now.slice(0, 19).replace('T', ' ')}`
        : a.reset
          ? 'everything cleared, the connector healthy, the clock back to real time'
          : a.case_mode
            ? `the case connector is now ${a.case_mode} (was ${a.previous_mode})`
            : `answered ${j.status || r.status}`);
    say(`${label}: ${text}`, j.ok ? 'ok' : 'bad');
    return j;
  } catch (e) {
    say(`${label}: the console did not answer (${e instanceof Error ? e.message : String(e)})`, 'bad');
    return {};
  }
}

function renderApprovals(list: ApprovalRequest[]): void {
  const nodes = list.map((a) => {
    const d = a.decision;
    const state =
      a.status === 'pending'
        ? 'waiting for a decision'
        : a.status === 'answered' && d
          ? `${d.decision === 'approve' ? 'approved' : 'rejected'} by ${d.approver}`
          : `closed: the case is written${d ? ` (${d.decision}d by ${d.approver})` : ''}`;
    const buttons =
      a.status === 'pending'
        ? h(
            'div',
            { class: 'decide' },
            h(
              'button',
              { class: 'approve solid', type: 'button', onclick: () => decide(a, 'approve') },
              'Approve',
            ),
            h('button', { class: 'reject', type: 'button', onclick: () => decide(a, 'reject') }, 'Reject'),
          )
        : null;
    return h(
      'article',
      { class: `approval ${a.status}`, 'data-event': a.event_id ?? '' },
      h(
        'div',
        { class: 'approval-head' },
        h('strong', { text: a.subject }),
        h('span', { class: `tag ${a.status}`, text: state }),
      ),
      h('p', { text: a.message }),
      h('p', { class: 'meta', text: `event ${a.event_id || '–'} · requested ${time(a.accepted_at)}` }),
      buttons,
    );
  });
  const box = $('approvals');
  box.replaceChildren();
  if (nodes.length === 0) box.append(h('p', { class: 'empty', text: 'No approval requests.' }));
  box.append(...nodes);
}
async function decide(a: ApprovalRequest, decision: 'approve' | 'reject'): Promise<void> {
  const field = input('approver');
  const approver = field.value.trim();
  if (!approver) {
    say('Type an approver name first.', 'bad');
    field.focus();
    return;
  }
  localStorage.setItem('approver', approver);
  const buttons = document.querySelectorAll<HTMLButtonElement>('.approval button');
  for (const b of buttons) b.disabled = true;
  await act(`${decision === 'approve' ? 'Approve ' : 'Reject '}${a.event_id || ''}`, '/api/approve', {
    resume_url: a.resume_url,
    decision,
    approver,
  });
  for (const b of document.querySelectorAll<HTMLButtonElement>('.approval button')) b.disabled = false;
}

function renderCases(cases: Case[]): void {
  const rows: Node[] = [];
  for (const c of [...cases].sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1))) {
    const open = openCases.has(c.event_id);
    const toggle = () => {
      if (open) openCases.delete(c.event_id);
      else openCases.add(c.event_id);
      if (view?.state) renderCases(view.state.cases);
    };
    rows.push(
      h(
        'tr',
        { class: `case-row${open ? ' open' : ''}`, 'data-event': c.event_id, tabindex: '0', onclick: toggle },
        h('td', { class: 'mono', text: c.event_id }),
        h('td', { text: brief(c.final_action) }),
        h('td', { class: 'result', text: brief(c.result) }),
        h('td', { class: 'approver', text: brief(c.approver) }),
        h('td', { text: brief(c.verification) }),
        h('td', { text: brief(c.expiry) }),
        h('td', { text: brief(c.rollback) }),
        h('td', { text: String(c.revision) }),
        h('td', { text: time(c.updated_at) }),
      ),
    );
    if (open)
      rows.push(
        h(
          'tr',
          { class: 'case-detail' },
          h('td', { colspan: '9' }, h('pre', { text: JSON.stringify(c, null, 2) })),
        ),
      );
  }
  fill($('cases'), rows, 'No cases yet.', 9);
}

function render(): void {
  if (view === null) return;
  const v = view;
  const s = v.state;
  $('conn').textContent = v.error ? 'mock API unreachable' : 'live';
  $('conn').dataset.state = v.error ? 'down' : 'live';
  $('source').textContent = `mock API: ${v.source}${v.error ? ` · ${v.error}` : ''} · view ${v.version}`;
  renderApprovals(v.approvals);
  renderCheck(v.check);
  if (!s) return;
  $('case-mode').textContent = s.case_mode;
  $('case-mode').dataset.mode = s.case_mode;
  const limits = v.health?.limits;
  const cap = (n: number, k: 'cases' | 'notifications') => (limits?.[k] ? `${n} / ${limits[k]}` : String(n));
  $('count-cases').textContent = cap(s.cases.length, 'cases');
  $('count-notifications').textContent = cap(s.notifications.length, 'notifications');
  $('count-blocklist').textContent = String(s.blocklist.length);
  fill(
    $('blocklist'),
    s.blocklist.map((b) =>
      h(
        'tr',
        { class: 'block', 'data-ip': b.ip },
        h('td', { class: 'mono', text: b.ip }),
        h('td', { class: 'mono', text: b.event_id }),
        h('td', { text: time(b.expires_at) }),
        h('td', { class: 'countdown', 'data-expires': b.expires_at }),
      ),
    ),
    'Nothing blocked.',
    4,
  );
  fill(
    $('history'),
    [...s.blocklist_history]
      .reverse()
      .map((b) =>
        h(
          'tr',
          { class: 'removed', 'data-ip': b.ip },
          h('td', { class: 'mono', text: b.ip }),
          h('td', { class: 'mono', text: b.event_id }),
          h('td', { text: time(b.removed_at) }),
          h('td', { class: `why ${b.removed_reason}`, text: b.removed_reason }),
        ),
      ),
    'No history.',
    4,
  );
  renderCases(s.cases);
  fill(
    $('notifications'),
    [...s.notifications].reverse().map((n) =>
      h(
        'li',
        { class: n.channel === 'approval' ? 'approval-note' : '' },
        h('span', {
          class: 'meta',
          text: `${time(n.accepted_at)} · ${n.channel || 'notify'} → ${n.recipient || '–'}`,
        }),
        h('span', { text: n.subject || n.message }),
      ),
    ),
    'No notifications.',
  );
  fill(
    $('journal'),
    [...s.journal]
      .reverse()
      .slice(0, 100)
      .map((j) =>
        h(
          'li',
          { class: j.status === 404 ? 'miss' : j.status >= 400 ? 'refused' : '' },
          h('span', { class: 'meta', text: time(j.at) }),
          ` ${j.method} ${j.path} `,
          h('b', { text: String(j.status) }),
        ),
      ),
    'No requests yet.',
  );
  tick();
}

function tick(): void {
  const now = serviceNow();
  $('clock').textContent = new Date(now).toISOString().slice(0, 19).replace('T', ' ');
  for (const el of document.querySelectorAll<HTMLElement>('.countdown')) {
    const ms = Date.parse(el.dataset.expires ?? '') - now;
    el.textContent = left(ms);
    el.dataset.urgent = String(ms < 60000);
  }
}

/** Each stage's brief and the starter control's state: fixed for the console's life, read once. */
async function loadStages(): Promise<void> {
  try {
    const res = await fetch('/api/stages');
    if (!res.ok) return;
    const stages: StagesView = await res.json();
    setStages(stages);
    renderBrief(input('check-stage').value);
  } catch {
    // The briefs stay away; Check still works.
  }
}

function connect(): void {
  const es = new EventSource('/api/events');
  es.addEventListener('state', (e) => {
    view = JSON.parse(e.data);
    render();
  });
  es.addEventListener('check-run', (e) => renderRun(JSON.parse(e.data)));
  es.addEventListener('check-line', (e) => addLine(JSON.parse(e.data)));
  es.addEventListener('runs', (e) => renderRuns(JSON.parse(e.data)));
  es.onerror = () => {
    $('conn').textContent = 'reconnecting…';
    $('conn').dataset.state = 'down';
  };
}

document.addEventListener('DOMContentLoaded', () => {
  const saved = localStorage.getItem('approver');
  if (saved) input('approver').value = saved;
  $('set-mode').addEventListener('click', () => {
    const mode = input('mode').value;
    void act(`Case mode ${mode}`, '/api/case-mode', { mode });
  });
  for (const b of document.querySelectorAll<HTMLButtonElement>('button.clock')) {
    b.addEventListener('click', () => {
      void act(`Clock +${b.dataset.minutes} min`, '/api/clock', {
        advance_minutes: Number(b.dataset.minutes),
      });
    });
  }
  for (const b of document.querySelectorAll<HTMLButtonElement>('button.alert')) {
    b.addEventListener('click', async () => {
      const j = await act(`Test alert (${b.dataset.kind})`, '/api/alert', { kind: b.dataset.kind });
      if (j.ok)
        say(`Test alert (${b.dataset.kind}) sent as ${j.event_id}; the workflow answered ${j.status}.`, 'ok');
    });
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  $('reset').addEventListener('click', () => {
    $('reset-confirm').hidden = false;
    clearTimeout(timer);
    timer = setTimeout(() => {
      $('reset-confirm').hidden = true;
    }, 5000);
  });
  $('reset-confirm').addEventListener('click', async () => {
    $('reset-confirm').hidden = true;
    openCases.clear();
    await act('Reset', '/api/reset', { confirm: true });
  });
  $('check-run').addEventListener('click', () => {
    const stage = input('check-stage').value;
    const only = checkOnly(stage);
    void act(`Check ${checkScope(stage, only)}`, '/api/check', { stage, only });
  });
  input('check-stage').addEventListener('change', () => renderBrief(input('check-stage').value));
  document.getElementById('starter-add')?.addEventListener('click', async () => {
    const stage = input('check-stage').value;
    renderStarter(stage, await act(`Add a starter for ${stage}`, '/api/starter', { stage }));
  });
  void loadStages();
  connect();
  setInterval(() => {
    if (view) tick();
  }, 1000);
});
