/**
 * The judging kernel: the facts a driver sent and the questions the acceptance matrix's verdicts and the
 * stage checker's expectations both ask of one destination state (GET /state). Each judge words its
 * findings its own way (a case's checks; a stage's hints); what it looks at is asked here, once.
 */
import type {
  CaseReading,
  JournalEntryReading,
  NotificationReading,
  StateReading,
} from '../mock-api-client/readings.js';

/** What the driver sent, so a judge knows which event, address, user and approver to look for. */
export interface Facts {
  eventId: string;
  user: string;
  sourceIp: string;
  /** A fresh name per case or scenario, so "the case names the approver" cannot pass by accident. */
  approver: string;
}

/** A journal entry that answered 2xx. */
export const ok = (j: JournalEntryReading) => j.status >= 200 && j.status < 300;

/** A journal entry as a line names it: `POST /cases (201)`. */
export const show = (j: JournalEntryReading) => `${j.method} ${j.path} (${j.status})`;

/** The requests of one method on a path, or on every path a predicate accepts. */
export function requests(
  state: StateReading,
  method: string,
  path: string | ((path: string) => boolean),
): JournalEntryReading[] {
  const match = typeof path === 'string' ? (p: string) => p === path : path;
  return state.journal.filter((j) => j.method === method && match(j.path));
}

/** Requests of any method on a resource, e.g. `/identity`: the resource itself or anything under it. */
export function touching(state: StateReading, resource: string): JournalEntryReading[] {
  return state.journal.filter((j) => j.path === resource || j.path.startsWith(`${resource}/`));
}

/** Containment requests: a lookup (GET) reads, a POST or DELETE on /blocklist acts. */
export const blocklistWrites = (state: StateReading) =>
  touching(state, '/blocklist').filter((j) => j.method === 'POST' || j.method === 'DELETE');

export const blockPosts = (state: StateReading) => requests(state, 'POST', '/blocklist');

export const caseWrites = (state: StateReading) => requests(state, 'POST', '/cases');

/** The cases of the event. */
export const casesOf = (state: StateReading, facts: Facts): CaseReading[] =>
  state.cases.filter((c) => c.event_id === facts.eventId);

/** The event's case, when exactly one exists and no other case was made. */
export function theCase(state: StateReading, facts: Facts): CaseReading | undefined {
  const own = casesOf(state, facts);
  return own.length === 1 && state.cases.length === 1 ? own[0] : undefined;
}

/** The notifications of the event on one channel. */
export const notificationsOf = (state: StateReading, facts: Facts, channel: string): NotificationReading[] =>
  state.notifications.filter((n) => n.channel === channel && n.event_id === facts.eventId);

/** The active blocklist entries of the alert's address. */
export const entriesOf = (state: StateReading, facts: Facts) =>
  state.blocklist.filter((e) => e.ip === facts.sourceIp);

export const casePath = (facts: Facts) => `/cases/${encodeURIComponent(facts.eventId)}`;

export const identityPath = (user: string) => `/identity/${encodeURIComponent(user)}`;

export const blockPath = (facts: Facts) => `/blocklist/${facts.sourceIp}`;
