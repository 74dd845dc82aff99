/**
 * The console's "Your runs" panel as a trainee sees it, in Chromium, on a real lab (test/lab/tutor.sh): the
 * console's page signed in (CONSOLE_SECRET, when the lab has one), its own controls pressed, and what the
 * panel draws read from the page. Each card is timed as it appears (a MutationObserver on the page: the
 * first moment a run is drawn in a status), and given with the tutor's view of it (GET /api/runs, as the
 * page's own origin reads it: its `stopped_at` is n8n's stoppedAt). The shell judges the JSON written to
 * OUT against n8n's own record of the runs.
 *   tutor-panel.ts alert  --console URL --kind KIND [--approve] --out OUT   a test alert (Send a test alert);
 *        its card once the run has ended, or, with --approve, once it waits, then Approve (the approval's
 *        own control), and its card once it has ended
 *   tutor-panel.ts pair   --console URL --kind KIND --out OUT    two test alerts at once (two presses, the
 *        second before the first is answered), both cards once both runs have ended
 *   tutor-panel.ts editor --console URL --n8n URL --workflow ID [--path P] --out OUT   n8n's editor signed in
 *        (TRAINEE_EMAIL, TRAINEE_PASSWORD), the workflow opened, Execute workflow pressed; once it waits for
 *        its trigger a low-confidence alert is POSTed to /webhook-test/P; the card of that run
 *   tutor-panel.ts series --console URL --kind KIND --runs N --every-ms MS [--ready FILE] --out OUT   N test
 *        alerts, one every MS, each card timed once its run has ended
 *   tutor-panel.ts watch  --console URL --until FILE [--ready FILE] --out OUT   the page held open until FILE
 *        exists (at most 10 minutes), then every card it drew
 *   tutor-panel.ts runs-file FILE    reports/runs.json parsed with RunsFileSchema: its total, tries and runs
 * --ready FILE is written once the page is live. One line on success; exit 1 with one line on failure, 2 on usage.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { BrowserContext, Page, Response } from 'playwright-core';
import { z } from 'zod';
import { RunsFileSchema } from '../../app/check-report/runs.js';
import { alertPayload, LAB_ADDRESS, LAB_USER, TEST_ALERTS } from '../../app/workflow/scenario.js';
import { ACTION_MS, currentStep, doing, say, VIEWPORT } from '../editor/editor-kit.js';
import { launchChromium } from '../helpers/chromium.js';

const USAGE =
  'usage: tutor-panel.ts alert|pair|editor|series|watch --console URL [--kind KIND] [--approve] [--n8n URL --workflow ID] [--runs N --every-ms MS] [--until FILE] [--ready FILE] --out OUT | runs-file FILE';
const ENDED = ['success', 'error', 'canceled', 'crashed'];
/** A run of the guide's workflow ends within seconds; the tutor adds at most a few. */
const RUN_MS = 60_000;
const KINDS = ['positive', 'low_confidence', 'invalid'] as const;
/** The panel has caught up when its view has not changed for this long (the tutor polls every second). */
const SETTLED_MS = 2_500;
const SETTLE_LIMIT_MS = 30_000;

/** What a card of the panel shows, read from the page. */
const CardSchema = z.object({
  execution: z.string(),
  verdict: z.string(),
  status: z.string(),
  how: z.string(),
  tags: z.string(),
  alert: z.string(),
  kind: z.string(),
  stages: z.array(z.object({ stage: z.string(), text: z.string() })),
  received: z.array(z.string()),
  uncertain: z.boolean(),
  summary: z.string(),
  unmet: z.object({ text: z.string(), hint: z.string(), mismatch: z.string(), why: z.string() }).nullable(),
  link: z.object({ href: z.string(), text: z.string(), target: z.string(), rel: z.string() }).nullable(),
});
type Card = z.infer<typeof CardSchema>;
const ViewSchema = z.object({
  version: z.number(),
  trouble: z.string().nullable(),
  runs: z.array(
    z.looseObject({
      execution_id: z.string(),
      status: z.string(),
      stopped_at: z.string().nullable(),
      from_editor: z.boolean(),
      received_certain: z.boolean(),
    }),
  ),
});
type View = z.infer<typeof ViewSchema>;
const SeenSchema = z.record(z.string(), z.number());
const AlertAnswerSchema = z.looseObject({
  ok: z.boolean(),
  status: z.number().optional(),
  event_id: z.string(),
});

/** A card with when it was first drawn in its status, and n8n's end of the run as the tutor read it. */
interface Timed extends Card {
  event: string | null;
  seen_ms: number | null;
  stopped_at: string | null;
  /** From n8n's stoppedAt to the card first drawn in its ended status. */
  latency_ms: number | null;
}

// In the page (the project's types have no DOM library): the first moment each run is drawn in a status.
const OBSERVE = `(() => {
  if (window.__seen) return;
  window.__seen = {};
  const note = () => {
    for (const c of document.querySelectorAll('#runs .run-card')) {
      const key = c.dataset.execution + '|' + c.dataset.status;
      if (!(key in window.__seen)) window.__seen[key] = Date.now();
    }
  };
  new MutationObserver(note).observe(document.documentElement, { childList: true, subtree: true });
  note();
})()`;
// In the page: every card of the panel, as drawn.
const READ_CARDS = `(() => [...document.querySelectorAll('#runs .run-card')].map((c) => {
  const text = (sel) => c.querySelector(sel)?.textContent ?? '';
  const unmet = c.querySelector('.run-unmet');
  const link = c.querySelector('.run-open a');
  return {
    execution: c.dataset.execution ?? '',
    verdict: c.dataset.verdict ?? '',
    status: c.dataset.status ?? '',
    how: text('.run-how').trim(),
    tags: text('.run-tags'),
    alert: text('.run-alert'),
    kind: text('.run-kind'),
    stages: [...c.querySelectorAll('.run-stages > li')].map((li) => ({ stage: li.dataset.stage ?? '', text: li.textContent ?? '' })),
    received: [...c.querySelectorAll('.run-received li')].map((li) => li.textContent ?? ''),
    uncertain: c.querySelector('.run-received .uncertain') !== null,
    summary: text('.run-summary'),
    unmet: unmet === null ? null : {
      text: unmet.querySelector('p')?.textContent ?? '',
      hint: unmet.querySelector('.hint')?.textContent ?? '',
      mismatch: unmet.querySelector('.mismatch')?.textContent ?? '',
      why: unmet.querySelector('.why')?.textContent ?? '',
    },
    link: link === null ? null : {
      href: link.getAttribute('href') ?? '', text: link.textContent ?? '',
      target: link.getAttribute('target') ?? '', rel: link.getAttribute('rel') ?? '',
    },
  };
}))()`;
const READ_VIEW = `fetch('/api/runs', { cache: 'no-store' }).then((r) => r.json())`;

const eventOf = (card: Card) => /^event (\S+) ·/.exec(card.alert)?.[1] ?? null;

class Panel {
  constructor(
    readonly page: Page,
    readonly url: string,
  ) {}

  async cards(): Promise<Card[]> {
    return z.array(CardSchema).parse(await this.page.evaluate(READ_CARDS));
  }

  async view(): Promise<View> {
    return ViewSchema.parse(await this.page.evaluate(READ_VIEW));
  }

  /**
   * Waits (bounded) until the tutor has caught up, as a trainee sees the panel before sending: its view
   * unchanged for SETTLED_MS (a page opened first explains the runs made while none was open).
   */
  async settled(): Promise<void> {
    doing('waiting for the panel to catch up on the runs made while no page was open');
    const end = Date.now() + SETTLE_LIMIT_MS;
    let last = (await this.view()).version;
    let since = Date.now();
    while (Date.now() < end) {
      await this.page.waitForTimeout(250);
      const now = (await this.view()).version;
      if (now !== last) [last, since] = [now, Date.now()];
      else if (Date.now() - since >= SETTLED_MS) return;
    }
  }

  /** The card of EVENT once its status is one of STATUSES (waited for, bounded). */
  async cardOf(event: string, statuses: readonly string[], ms = RUN_MS): Promise<Card> {
    const end = Date.now() + ms;
    for (;;) {
      const card = (await this.cards()).find((c) => eventOf(c) === event);
      if (card !== undefined && statuses.includes(card.status)) return card;
      if (Date.now() > end)
        throw new Error(
          `no card of ${event} in status ${statuses.join('|')} after ${ms / 1000} s (${card ? `it is ${card.status}` : 'no card at all'})`,
        );
      await this.page.waitForTimeout(100);
    }
  }

  /** Cards with when each was first drawn in its status and, for an ended run, its latency. */
  async timed(cards: Card[]): Promise<Timed[]> {
    const seen = SeenSchema.parse(await this.page.evaluate('window.__seen'));
    const view = await this.view();
    return cards.map((c) => {
      const explained = view.runs.find((r) => r.execution_id === c.execution);
      const seenMs = seen[`${c.execution}|${c.status}`] ?? null;
      const stoppedAt = explained?.stopped_at ?? null;
      const latency =
        seenMs !== null && stoppedAt !== null && ENDED.includes(c.status)
          ? seenMs - Date.parse(stoppedAt)
          : null;
      return { ...c, event: eventOf(c), seen_ms: seenMs, stopped_at: stoppedAt, latency_ms: latency };
    });
  }

  /**
   * Presses Send a test alert's KIND `times` times, one press right after the other (not awaiting the
   * console's answers in between: the alerts are sent at once); the console's answers.
   */
  async sendAlerts(kind: string, times = 1): Promise<z.infer<typeof AlertAnswerSchema>[]> {
    const answers: Promise<Response>[] = [];
    const wanted = (r: Response) => r.url() === `${this.url}/api/alert` && r.request().method() === 'POST';
    const listen = (r: Response) => {
      if (wanted(r)) answers.push(Promise.resolve(r));
    };
    this.page.on('response', listen);
    try {
      doing(`pressing Send a test alert (${kind}) ${times === 1 ? 'once' : `${times} times at once`}`);
      const button = this.page.locator(`button.alert[data-kind="${kind}"]`);
      for (let i = 0; i < times; i += 1) await button.click();
      const end = Date.now() + ACTION_MS;
      while (answers.length < times) {
        if (Date.now() > end) throw new Error(`${answers.length} of ${times} test alerts answered`);
        await this.page.waitForTimeout(50);
      }
    } finally {
      this.page.off('response', listen);
    }
    return Promise.all(
      answers.map(async (r) => {
        const answer = AlertAnswerSchema.parse(await (await r).json());
        if (!answer.ok)
          throw new Error(`the test alert was not taken: ${JSON.stringify(answer).slice(0, 160)}`);
        return answer;
      }),
    );
  }
}

/** The console's page, signed in when the lab has a secret, live, with its Your runs panel drawn and timed. */
async function openConsole(context: BrowserContext, url: string): Promise<Panel> {
  const page = await context.newPage();
  page.setDefaultTimeout(ACTION_MS);
  const secret = process.env.CONSOLE_SECRET;
  if (secret) {
    doing(`signing in to the console at ${url}/login`);
    await page.goto(`${url}/login#secret=${encodeURIComponent(secret)}`);
    await page.waitForURL(`${url}/`);
  } else {
    doing(`opening the console at ${url}/`);
    await page.goto(`${url}/`);
  }
  await page.evaluate(OBSERVE);
  doing('waiting for the console to be live and its Your runs panel');
  await page.locator('#conn').filter({ hasText: 'live' }).waitFor();
  await page.locator('#runs-card h2').filter({ hasText: 'Your runs' }).waitFor();
  const panel = new Panel(page, url);
  await panel.settled();
  return panel;
}

/** n8n's sign-in page, as the trainee signs in (2.41.1 refuses a sixth sign-in within a minute: waits). */
async function signInToN8n(page: Page, n8n: string): Promise<void> {
  const email = process.env.TRAINEE_EMAIL;
  const password = process.env.TRAINEE_PASSWORD;
  if (!email || !password) throw new Error('no TRAINEE_EMAIL and TRAINEE_PASSWORD');
  doing(`signing in at ${n8n}/signin`);
  for (let tries = 1; ; tries += 1) {
    await page.goto(`${n8n}/signin`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const signedIn = await page
      .waitForURL((u) => !/^\/(signin)?$/.test(u.pathname))
      .then(
        () => true,
        () => false,
      );
    if (signedIn) return;
    if (tries === 5) throw new Error('still on the sign-in page after five tries');
    await page.waitForTimeout(15_000);
  }
}

type Values = Record<string, string | boolean | undefined>;
const str = (v: Values, key: string): string => {
  const value = v[key];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${key} is needed`);
  return value;
};
class UsageError extends Error {}

async function alert(panel: Panel, v: Values): Promise<unknown> {
  const kind = str(v, 'kind');
  const [sent] = await panel.sendAlerts(kind);
  if (sent === undefined) throw new Error('no answer');
  if (!v.approve) {
    doing(`waiting for the card of ${sent.event_id}`);
    const [card] = await panel.timed([await panel.cardOf(sent.event_id, ENDED)]);
    say(
      `${sent.event_id}: run ${card?.execution} ${card?.status}, ${card?.verdict}, on the page ${card?.latency_ms} ms after it ended`,
    );
    return { sent: [sent], card };
  }
  doing(`waiting for the card of ${sent.event_id}, waiting for its approval`);
  const [waiting] = await panel.timed([await panel.cardOf(sent.event_id, ['waiting'])]);
  doing(`pressing Approve on the approval request of ${sent.event_id}`);
  const approve = panel.page.locator(`.approval[data-event="${sent.event_id}"] button.approve`);
  const [answer] = await Promise.all([
    panel.page.waitForResponse(
      (r) => r.url() === `${panel.url}/api/approve` && r.request().method() === 'POST',
    ),
    approve.click(),
  ]);
  const approved: unknown = await answer.json();
  doing(`waiting for the card of ${sent.event_id} once the run has ended`);
  const ended = await panel.cardOf(sent.event_id, ENDED);
  const [card] = await panel.timed([ended]);
  const same = (await panel.cards()).filter((c) => c.execution === ended.execution).length;
  say(
    `${sent.event_id}: run ${card?.execution} waited (${waiting?.verdict}), approved, then ${card?.status}, ${card?.verdict}, ${card?.latency_ms} ms after it ended`,
  );
  return { sent: [sent], waiting, approved, card, cards_of_run: same };
}

async function pair(panel: Panel, v: Values): Promise<unknown> {
  const sent = await panel.sendAlerts(str(v, 'kind'), 2);
  doing(`waiting for the cards of ${sent.map((s) => s.event_id).join(' and ')}`);
  const cards: Card[] = [];
  for (const s of sent) cards.push(await panel.cardOf(s.event_id, ENDED));
  // Both drawn in their ended status: read again, the later explanation of one may have redrawn the other.
  const again = (await panel.cards()).filter((c) => cards.some((x) => x.execution === c.execution));
  const timed = await panel.timed(again);
  say(timed.map((c) => `${c.event}: run ${c.execution} ${c.verdict}`).join('; '));
  return { sent, cards: timed };
}

async function editor(panel: Panel, context: BrowserContext, v: Values): Promise<unknown> {
  const n8n = str(v, 'n8n').replace(/\/+$/, '');
  const workflow = str(v, 'workflow');
  const path = typeof v.path === 'string' ? v.path : 'suspicious-login';
  const page = await context.newPage();
  page.setDefaultTimeout(ACTION_MS);
  await signInToN8n(page, n8n);
  doing(`opening the workflow ${n8n}/workflow/${workflow}`);
  await page.goto(`${n8n}/workflow/${workflow}`);
  await page.locator('[data-test-id="canvas-node"]').first().waitFor();
  // 2.41.1's canvas button "Execute workflow" (data-test-id execute-workflow-button); with a Webhook as the
  // trigger it then says "Waiting for trigger event" and n8n listens once on /webhook-test/<path>.
  doing('pressing Execute workflow');
  await page.keyboard.press('Escape');
  await page
    .locator('[data-test-id="execute-workflow-button"]')
    .filter({ hasText: 'Execute workflow' })
    .click();
  await page.getByText('Waiting for trigger event').first().waitFor();
  const event = `evt-tutor-editor-${Date.now()}`;
  const body = alertPayload(
    { eventId: event, sourceIp: LAB_ADDRESS, user: LAB_USER },
    TEST_ALERTS.low_confidence,
  );
  doing(`POSTing ${event} to ${n8n}/webhook-test/${path}`);
  const answer = await fetch(`${n8n}/webhook-test/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(ACTION_MS),
  });
  if (answer.status !== 200)
    throw new Error(`the test URL answered ${answer.status}: ${(await answer.text()).slice(0, 160)}`);
  doing(`waiting for the card of ${event}`);
  const [card] = await panel.timed([await panel.cardOf(event, ENDED)]);
  say(
    `${event}: run ${card?.execution} ${card?.how}, ${card?.verdict}, ${card?.latency_ms} ms after it ended`,
  );
  return { sent: [{ event_id: event, status: answer.status }], card };
}

async function series(panel: Panel, v: Values): Promise<unknown> {
  const kind = str(v, 'kind');
  const runs = Number(str(v, 'runs'));
  const every = Number(str(v, 'every-ms'));
  const events: string[] = [];
  // A moment first for whoever waits on --ready to start measuring the console.
  if (typeof v.ready === 'string') await panel.page.waitForTimeout(2_000);
  const start = Date.now();
  for (let i = 0; i < runs; i += 1) {
    await panel.page.waitForTimeout(Math.max(0, start + i * every - Date.now()));
    const [sent] = await panel.sendAlerts(kind);
    if (sent !== undefined) events.push(sent.event_id);
  }
  doing(`waiting for the cards of ${runs} runs`);
  const cards: Card[] = [];
  for (const event of events) cards.push(await panel.cardOf(event, ENDED));
  const timed = await panel.timed(cards);
  const latencies = timed.flatMap((c) => (c.latency_ms === null ? [] : [c.latency_ms])).sort((a, b) => a - b);
  say(`${timed.length} runs on the page, ${latencies[0]} to ${latencies.at(-1)} ms after they ended`);
  return { sent: events, cards: timed };
}

async function watch(panel: Panel, v: Values): Promise<unknown> {
  const until = str(v, 'until');
  const end = Date.now() + 600_000;
  doing(`holding the page open until ${until} exists`);
  while (!existsSync(until) && Date.now() < end) await panel.page.waitForTimeout(250);
  const cards = await panel.timed(await panel.cards());
  say(`the page drew ${cards.length} cards`);
  return { cards, view: await panel.view() };
}

function runsFile(file: string): void {
  const parsed = RunsFileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  process.stdout.write(`${JSON.stringify(parsed)}\n`);
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      console: { type: 'string' },
      kind: { type: 'string' },
      approve: { type: 'boolean' },
      n8n: { type: 'string' },
      workflow: { type: 'string' },
      path: { type: 'string' },
      runs: { type: 'string' },
      'every-ms': { type: 'string' },
      until: { type: 'string' },
      ready: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const [command, file] = positionals;
  if (command === 'runs-file') {
    if (file === undefined) throw new UsageError('runs-file FILE');
    runsFile(file);
    return;
  }
  const url = str(values, 'console').replace(/\/+$/, '');
  const out = str(values, 'out');
  if (values.kind !== undefined && !KINDS.some((k) => k === values.kind))
    throw new UsageError(`--kind is one of ${KINDS.join(', ')}`);
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const panel = await openConsole(context, url);
    if (typeof values.ready === 'string') writeFileSync(values.ready, `${Date.now()}\n`);
    let result: unknown;
    if (command === 'alert') result = await alert(panel, values);
    else if (command === 'pair') result = await pair(panel, values);
    else if (command === 'editor') result = await editor(panel, context, values);
    else if (command === 'series') result = await series(panel, values);
    else if (command === 'watch') result = await watch(panel, values);
    else throw new UsageError(`unknown command ${command ?? '(none)'}`);
    writeFileSync(out, `${JSON.stringify(result, null, 1)}\n`);
  } finally {
    await browser.close();
  }
}

main().catch((err: unknown) => {
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  if (err instanceof UsageError) {
    process.stderr.write(`tutor-panel: ${message}; ${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  process.stderr.write(`tutor-panel: ${currentStep()}: ${message}\n`);
  process.exitCode = 1;
});
