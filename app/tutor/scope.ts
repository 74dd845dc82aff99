/**
 * What the mock API received from one run, and the state as the checker's expectations would see it had
 * that run been the only one: the journal's requests made while the run ran, the destination records of its
 * event; and whether the state still holds that window at all (goneFromState). The lab's state holds every
 * run the trainee made since the last reset; the checker resets before each stimulus, the tutor scopes.
 */
import type { JournalEntryReading, StateReading } from '../mock-api-client/readings.js';
import type { BusySpan } from '../runs/run.js';

/** A write of the run's event this long after its end is a later run's (a run's writes come before it ends). */
const LATER_WRITE_MS = 1000;

/** Requests no workflow makes: the trainer's and the checker's (reset, controls, state). */
const NOT_A_WORKFLOW_REQUEST = /^\/(reset|control\/|state|openapi)/;

export interface RunWindow {
  startedAt: string;
  /** Null while the run goes on (it waits): the window reaches now. */
  stoppedAt: string | null;
  /**
   * When the run was busy, on the same clock (app/runs/run.ts): what happened outside these, while
   * it waited for its approval, is not its own. Absent: the whole window is its own.
   */
  busy?: BusySpan[] | undefined;
}

/**
 * The margin around a busy span: a request is made within its node's time, and n8n and the mock API read
 * one clock (the host's) to the millisecond; one for rounding.
 */
const BUSY_MARGIN_MS = 1;

/** The time is the run's own: within its busy spans (with their margin), or, without them, its window. */
function ownTime(window: RunWindow, at: number): boolean {
  if (window.busy !== undefined && window.busy.length > 0)
    return window.busy.some(([from, to]) => at >= from - BUSY_MARGIN_MS && at <= to + BUSY_MARGIN_MS);
  const from = Date.parse(window.startedAt);
  const to = window.stoppedAt === null ? Number.POSITIVE_INFINITY : Date.parse(window.stoppedAt);
  return at >= from && at <= to;
}

const eventOf = (x: { event_id?: unknown }) => (typeof x.event_id === 'string' ? x.event_id : null);

/** The journal's requests of the run: made while it was busy (or within its window, when that is not known). */
export function runRequests(
  state: StateReading,
  window: RunWindow,
  eventId: string | null,
): JournalEntryReading[] {
  const from = Date.parse(window.startedAt);
  const to = window.stoppedAt === null ? Number.POSITIVE_INFINITY : Date.parse(window.stoppedAt);
  return state.journal.filter((j) => {
    if (NOT_A_WORKFLOW_REQUEST.test(j.path)) return false;
    const at = Date.parse(j.at);
    const named = eventId !== null && j.path.includes(`/${encodeURIComponent(eventId)}`);
    // Without busy spans, a request naming its event just after the window (a moved clock's slack) is its own.
    return (
      ownTime(window, at) || (window.busy === undefined && named && at >= from && at <= to + LATER_WRITE_MS)
    );
  });
}

/** A record's last write: when it was updated, created, accepted or removed. */
function writtenAt(x: Record<string, unknown>): number | null {
  for (const key of ['updated_at', 'created_at', 'accepted_at', 'removed_at']) {
    const value = x[key];
    if (typeof value === 'string') return Date.parse(value);
  }
  return null;
}

/**
 * The state as one run of `eventId` left it: its requests, and the records of its event (cases,
 * notifications, blocklist entries and their history) or written while it ran (a case under another key).
 */
export function scopedState(
  state: StateReading,
  requests: JournalEntryReading[],
  eventId: string | null,
  window: RunWindow,
): StateReading {
  const own = <T extends Record<string, unknown>>(xs: readonly T[]) =>
    xs.filter((x) => {
      if (eventOf(x) === eventId) return true;
      const at = writtenAt(x);
      return at !== null && ownTime(window, at);
    });
  return {
    ...state,
    journal: requests,
    cases: own(state.cases),
    notifications: own(state.notifications),
    blocklist: own(state.blocklist),
    blocklist_history: own(state.blocklist_history),
  };
}

/** The scoped state as it stood at `at` (the approval request's time): requests and records before it. */
export function stateAt(state: StateReading, at: string): StateReading {
  const t = Date.parse(at);
  const before = (x: Record<string, unknown>) => {
    const when = typeof x.created_at === 'string' ? x.created_at : x.accepted_at;
    return typeof when !== 'string' || Date.parse(when) <= t;
  };
  return {
    ...state,
    journal: state.journal.filter((j) => Date.parse(j.at) <= t),
    cases: state.cases.filter(before),
    notifications: state.notifications.filter(before),
    blocklist: state.blocklist.filter(before),
  };
}

/**
 * The earlier delivery of a duplicate, as its records prove it: its accepted block (the event's blocklist
 * entry, active or in the history, made before the run) and its case write, as journal lines before the
 * run's own, so that "the second delivery sent POST /blocklist again" counts the first one's block once.
 */
export function earlierDelivery(
  state: StateReading,
  startedAt: string,
  firstSeq: number,
): JournalEntryReading[] {
  const t = Date.parse(startedAt);
  const madeBefore = (x: Record<string, unknown>) => {
    const when = typeof x.created_at === 'string' ? x.created_at : x.blocked_at;
    return typeof when === 'string' && Date.parse(when) < t;
  };
  const blocked = [...state.blocklist, ...state.blocklist_history].some(madeBefore);
  const lines: JournalEntryReading[] = [];
  if (blocked)
    lines.push({ seq: firstSeq - 2, at: startedAt, method: 'POST', path: '/blocklist', status: 201 });
  if (state.cases.length > 0)
    lines.push({ seq: firstSeq - 1, at: startedAt, method: 'POST', path: '/cases', status: 201 });
  return lines;
}

/**
 * Why the state no longer holds the run's window, or null when it does: `reset` when the state began after
 * the run did (the mock API was reset or started again: its `since`), `rewritten` when a later run wrote the
 * run's event again (a record of it, or a request naming it, after the run's end).
 */
export function goneFromState(
  state: StateReading,
  window: RunWindow,
  eventId: string | null,
): 'reset' | 'rewritten' | null {
  const since = typeof state.since === 'string' ? Date.parse(state.since) : Number.NaN;
  if (Number.isFinite(since) && since > Date.parse(window.startedAt)) return 'reset';
  if (window.stoppedAt === null || eventId === null) return null;
  const after = Date.parse(window.stoppedAt) + LATER_WRITE_MS;
  const named = `/${encodeURIComponent(eventId)}`;
  if (state.journal.some((j) => j.path.includes(named) && Date.parse(j.at) > after)) return 'rewritten';
  const records = [...state.cases, ...state.notifications, ...state.blocklist, ...state.blocklist_history];
  return records.some((r) => r.event_id === eventId && (writtenAt(r) ?? 0) > after) ? 'rewritten' : null;
}
