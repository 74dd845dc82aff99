/** The console's feed of the mock API's state: one poller of /state while a page is open, none otherwise. */
import { readFile, stat } from 'node:fs/promises';
import type { Health } from '../api/schemas/health.js';
import type { State } from '../api/schemas/state.js';
import type { MockApiClient } from '../mock-api-client/client.js';
import { ListenedPoll } from '../tool-kit/listened-poll.js';
import { approvalsOf, type ConsoleView, type Decision } from './view.js';

export interface FeedOptions {
  api: MockApiClient;
  pollMs: number;
  checkReport: string | null;
  realNow?: () => number;
}

/**
 * Polls the mock API's /state with If-None-Match (a 304 costs nothing; a server that always answers 200
 * works too: an unchanged body, apart from the clock moving on, is no change) and tells its listeners when
 * the view changes. One poller for any number of browser tabs, and none while no tab is open: an idle
 * lab's console costs its host nothing (a class of sixteen on one host is sixteen idle consoles).
 */
export class StateFeed extends ListenedPoll<ConsoleView> {
  readonly #opts: FeedOptions;
  readonly #now: () => number;
  readonly #decisions = new Map<string, Decision>();
  #view: ConsoleView;
  #etag: string | undefined;
  #fingerprint = '';
  #checkStamp = '';

  constructor(opts: FeedOptions) {
    super(opts.pollMs);
    this.#opts = opts;
    this.#now = opts.realNow ?? Date.now;
    this.#view = {
      version: 0,
      source: opts.api.describe,
      error: null,
      service_offset_ms: 0,
      state: null,
      health: null,
      approvals: [],
      check: null,
    };
  }

  get view(): ConsoleView {
    return this.#view;
  }

  recordDecision(resumeUrl: string, decision: Decision): void {
    this.#decisions.set(resumeUrl, decision);
  }

  protected async poll(): Promise<void> {
    const next = { ...this.#view };
    let changed = false;
    try {
      // A block expires by the clock alone; a server whose ETag follows writes only would answer 304.
      const conditional = this.#etag !== undefined && !this.#blockDue();
      const res = await this.#opts.api.request('GET', '/state', undefined, {
        ifNoneMatch: conditional ? this.#etag : undefined,
      });
      if (res.status === 200) {
        const state = JSON.parse(res.text) as State;
        this.#etag = res.etag;
        const offset = Date.parse(state.now) - this.#now();
        // Only a clock move (a jump of a second or more against real time) counts, not its ticking.
        const fingerprint = `${Math.round(offset / 1000)}|${withoutNow(res.text, state.now)}`;
        if (fingerprint !== this.#fingerprint || next.error !== null) {
          this.#fingerprint = fingerprint;
          next.state = state;
          next.service_offset_ms = offset;
          next.health = await this.#health();
          changed = true;
        }
        next.error = null;
      } else if (res.status !== 304) {
        changed = next.error === null;
        next.error = `GET /state answered ${res.status}`;
      } else if (next.error !== null) {
        next.error = null;
        changed = true;
      }
    } catch (err) {
      changed = next.error === null;
      next.error = `the mock API at ${this.#opts.api.describe} does not answer: ${(err as Error).message}`;
    }
    if (await this.#readCheck(next)) changed = true;
    const approvals = next.state ? approvalsOf(next.state, this.#decisions) : [];
    if (JSON.stringify(approvals) !== JSON.stringify(this.#view.approvals)) changed = true;
    next.approvals = approvals;
    if (!changed) return;
    next.version = this.#view.version + 1;
    this.#view = next;
    this.tell(next);
  }

  #blockDue(): boolean {
    const serviceNow = this.#now() + this.#view.service_offset_ms;
    return (this.#view.state?.blocklist ?? []).some((b) => Date.parse(b.expires_at) <= serviceNow);
  }

  async #health(): Promise<Health | null> {
    try {
      const res = await this.#opts.api.request('GET', '/health');
      return res.status === 200 ? (JSON.parse(res.text) as Health) : null;
    } catch {
      return null;
    }
  }

  /** Re-reads the checker's report when its mtime or size changed; true when the view's copy changed. */
  async #readCheck(next: ConsoleView): Promise<boolean> {
    const path = this.#opts.checkReport;
    if (path === null) return false;
    let stamp = 'absent';
    try {
      const s = await stat(path);
      stamp = `${s.mtimeMs}|${s.size}`;
    } catch {
      // no report yet
    }
    if (stamp === this.#checkStamp) return false;
    this.#checkStamp = stamp;
    if (stamp === 'absent') next.check = null;
    else {
      try {
        next.check = JSON.parse(await readFile(path, 'utf8'));
      } catch (err) {
        next.check = { unreadable: (err as Error).message };
      }
    }
    return true;
  }
}

/**
 * The state's JSON without its `now`, which moves on every read. The service puts `now` last; a record
 * may hold a field of that name too, so it is cut where the service puts it, and only searched for
 * when the answer comes from elsewhere.
 */
export function withoutNow(body: string, now: string): string {
  const field = `"now":${JSON.stringify(now)}`;
  if (body.endsWith(`,${field}}`)) return `${body.slice(0, -(field.length + 2))}}`;
  return body.replace(field, '');
}
