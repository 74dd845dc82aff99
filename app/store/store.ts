import type { State } from '../schemas/state.js';
import { Blocklist } from './blocklist.js';
import { CaseConnector } from './case-connector.js';
import { CaseStore } from './cases.js';
import { type Clock, iso } from './clock.js';
import { Journal } from './journal.js';
import { NotificationStore } from './notifications.js';

export const LIMITS = {
  cases: 1000,
  notifications: 1000,
  journal: 1000,
  blocklistHistory: 1000,
  /** One case's JSON, after updates merged into it: the body limit, so a case never outgrows one write. */
  caseBytes: 64 * 1024,
} as const;

/** All in-memory state of one service instance. A fresh store per app keeps tests independent. */
export class Store {
  readonly cases = new CaseStore(LIMITS.cases, LIMITS.caseBytes);
  readonly notifications = new NotificationStore(LIMITS.notifications);
  readonly blocklist = new Blocklist(LIMITS.blocklistHistory);
  readonly connector = new CaseConnector();
  readonly journal = new Journal(LIMITS.journal);

  constructor(readonly clock: Clock) {}

  now(): number {
    return this.clock.now();
  }

  reset(): void {
    this.cases.clear();
    this.notifications.clear();
    this.blocklist.clear();
    this.journal.clear();
    this.connector.setMode('healthy');
    this.clock.reset();
  }

  snapshot(): State {
    const now = this.now();
    return {
      case_mode: this.connector.mode,
      now: iso(now),
      cases: this.cases.list(),
      notifications: this.notifications.list(),
      blocklist: this.blocklist.active(now),
      blocklist_history: this.blocklist.history(now),
      journal: this.journal.list(),
    };
  }
}
