/**
 * The console's page as the lab tests drive it in Chromium (test/lab/tutor-panel.ts): signed in, live, its
 * Your runs panel read card by card (each timed as it is first drawn in a status) and the tutor's view beside
 * it; n8n's sign-in as a trainee signs in; the drivers' usage errors.
 */
import type { BrowserContext, Page, Response } from 'playwright-core';
import { z } from 'zod';
import { ACTION_MS, doing } from '../editor/editor-kit.js';

export const ENDED = ['success', 'error', 'canceled', 'crashed'];
/** A run of the guide's workflow ends within seconds; the tutor adds at most a few. */
export const RUN_MS = 60_000;
export const KINDS = ['positive', 'low_confidence', 'invalid'] as const;
/** The panel has caught up when its view has not changed for this long (the tutor polls every second). */
const SETTLED_MS = 2_500;
const SETTLE_LIMIT_MS = 30_000;

/** What a card of the panel shows, read from the page. */
export const CardSchema = z.object({
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
export type Card = z.infer<typeof CardSchema>;
export const ViewSchema = z.object({
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
export type View = z.infer<typeof ViewSchema>;
const SeenSchema = z.record(z.string(), z.number());
export const AlertAnswerSchema = z.looseObject({
  ok: z.boolean(),
  status: z.number().optional(),
  event_id: z.string(),
});

/** A card with when it was first drawn in its status, and n8n's end of the run as the tutor read it. */
export interface Timed extends Card {
  event: string | null;
  seen_ms: number | null;
  stopped_at: string | null;
  /** From n8n's stoppedAt to the card first drawn in its ended status. */
  latency_ms: number | null;
}

// In the page (the project's types have no DOM library): the first moment each run is drawn in a status.
export const OBSERVE = `(() => {
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
export const READ_CARDS = `(() => [...document.querySelectorAll('#runs .run-card')].map((c) => {
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
export const READ_VIEW = `fetch('/api/runs', { cache: 'no-store' }).then((r) => r.json())`;

export const eventOf = (card: Card) => /^event (\S+) ·/.exec(card.alert)?.[1] ?? null;

export class Panel {
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
export async function openConsole(context: BrowserContext, url: string): Promise<Panel> {
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
export async function signInToN8n(page: Page, n8n: string): Promise<void> {
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

export type Values = Record<string, string | boolean | undefined>;
export const str = (v: Values, key: string): string => {
  const value = v[key];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${key} is needed`);
  return value;
};
export class UsageError extends Error {}
