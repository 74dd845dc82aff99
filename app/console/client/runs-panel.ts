/**
 * The "Your runs" panel: each run of the trainee's workflow, explained by the console's tutor as it ends
 * (app/tutor/tutor.ts), newest first: when and how it started, which alert, the stages it went through and
 * what each did, what the four systems received, the verdict, and for an expectation it did not meet what
 * was expected, the hint, what came instead and a link that opens the node to blame in that very run. All
 * of it n8n's, the alert's and the tutor's text, drawn as text; only http(s) addresses become links. The
 * panel is made on the first `runs` event, so a console without a tutor (no n8n API key) shows none.
 */
import type { Explanation } from '../../tutor/explanation.js';
import type { TutorView } from '../../tutor/tutor-view.js';
import { h } from './dom.js';

const VERDICTS: Record<string, string> = {
  'as-asked': 'as the exercise asks',
  unmet: 'not as asked',
  waiting: 'waiting for its approval',
  stopped: 'stopped, not judged',
  'cannot-tell': 'cannot tell',
};

const EMPTY =
  'No runs yet. Send a test alert, post one with curl, or press Execute workflow in n8n: each run is explained here within a few seconds of its end.';

/** An address the page may link to: http(s) only, so nothing a run carries can make the page run a script. */
function webAddress(raw: string | null): string | null {
  if (raw === null) return null;
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** The run's start in the browser's own time (a date too when it is not today's). */
function localTime(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const clock = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return at.toDateString() === new Date().toDateString() ? clock : `${at.toLocaleDateString()} ${clock}`;
}

const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : null);

/** The alert in four fields: which event, whose login, from where, how sure. */
function alertLine(alert: Record<string, unknown> | null): string {
  if (alert === null) return 'no alert: the Webhook received no JSON object';
  const parts = [
    `event ${str(alert.event_id) ?? '–'}`,
    `user ${str(alert.user) ?? '–'}`,
    `from ${str(alert.source_ip) ?? '–'}`,
    `confidence ${str(alert.confidence) ?? '–'}`,
  ];
  return parts.join(' · ');
}

/** The link to the run in n8n's editor: at the node to blame when there is one; text when no web address. */
function runLink(e: Explanation): Node | null {
  const href = webAddress(e.url);
  const node = e.unmet?.node ?? null;
  const label = node ? `open ${node} in this run` : 'open this run in n8n';
  if (href !== null)
    return h('a', { class: 'run-link', href, target: '_blank', rel: 'noopener', text: label });
  return e.url ? h('span', { class: 'meta', text: `run: ${e.url}` }) : null;
}

function runCard(e: Explanation): HTMLElement {
  const how = e.from_editor ? 'from the editor' : 'by webhook';
  const stages = e.stages.map((s) =>
    h(
      'li',
      { 'data-stage': s.stage },
      h('b', { text: s.title }),
      h('span', { class: 'meta', text: ` (${s.nodes.join(', ')})` }),
      ` ${s.did}`,
    ),
  );
  const received = e.received.map((r) =>
    h(
      'li',
      {},
      h('span', { class: 'system', text: r.system }),
      h('span', { class: 'mono', text: r.request }),
      r.holds ? h('span', { class: 'meta', text: `then held ${r.holds}` }) : null,
    ),
  );
  const unmet = e.unmet;
  return h(
    'article',
    {
      class: `run-card ${e.verdict}${e.status === 'waiting' ? ' waiting' : ''}`,
      'data-execution': e.execution_id,
      'data-verdict': e.verdict,
      'data-status': e.status,
    },
    h(
      'div',
      { class: 'run-head' },
      h('strong', { class: 'run-when', text: localTime(e.started_at), title: e.started_at }),
      h('span', {
        class: 'run-how',
        text: ` ${how} · ${e.workflow || 'a workflow without a name'} · run ${e.execution_id} (${e.status})`,
      }),
      h(
        'span',
        { class: 'run-tags' },
        // A run that waits is shown waiting, whatever the verdict on what it did so far.
        e.status === 'waiting' && e.verdict !== 'waiting'
          ? h('span', { class: 'tag waiting', text: 'waiting' })
          : null,
        h('span', { class: `tag ${e.verdict}`, text: VERDICTS[e.verdict] ?? e.verdict }),
      ),
    ),
    h('p', { class: 'run-alert mono', text: alertLine(e.alert) }),
    h('p', { class: 'run-kind', text: e.kind_text }),
    stages.length
      ? h('ol', { class: 'run-stages' }, ...stages)
      : h('p', { class: 'meta', text: 'no stage of the exercise ran' }),
    h(
      'div',
      { class: 'run-received' },
      h('span', { class: 'label', text: 'The four systems received: ' }),
      received.length ? h('ul', {}, ...received) : h('span', { class: 'meta', text: 'nothing' }),
      e.received_certain
        ? null
        : h('p', { class: 'uncertain', text: 'some requests may belong to another run' }),
    ),
    h('p', { class: 'run-summary', text: e.summary }),
    unmet
      ? h(
          'div',
          { class: 'run-unmet' },
          h('p', {}, h('span', { class: 'meta', text: `${unmet.stage}: ` }), unmet.expectation),
          unmet.hint ? h('p', { class: 'hint', text: `→ ${unmet.hint}` }) : null,
          unmet.mismatch ? h('p', { class: 'mismatch mono', text: `mismatch: ${unmet.mismatch}` }) : null,
          unmet.why ? h('p', { class: 'why', text: unmet.why }) : null,
        )
      : null,
    h('p', { class: 'run-open' }, runLink(e)),
  );
}

/** The panel's card on the page, shown once the console has a tutor (it sends runs only then). */
function card(): HTMLElement | null {
  const found = document.getElementById('runs-card');
  if (found !== null) found.hidden = false;
  return found;
}

let drawn = -1;
export function renderRuns(view: TutorView): void {
  if (view.version === drawn) return;
  drawn = view.version;
  const box = card();
  if (box === null) return;
  const trouble = box.querySelector<HTMLElement>('#runs-trouble');
  if (trouble !== null) {
    trouble.textContent = view.trouble ?? '';
    trouble.hidden = view.trouble === null;
  }
  const list = box.querySelector<HTMLElement>('#runs');
  if (list === null) return;
  list.replaceChildren(
    ...(view.runs.length ? view.runs.map(runCard) : [h('p', { class: 'empty', text: EMPTY })]),
  );
}
