/** All in-memory state of one mock API: its parts, the clock, the version every change moves, the cached JSON. */
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

/** The parts of the state whose JSON is cached separately, each under its own version. */
type Section = 'cases' | 'notifications' | 'blocklist' | 'journal';

/**
 * All in-memory state of one service instance. A fresh store per app keeps tests independent.
 *
 * Every change, by any part, moves `version` (each part is handed a callback it calls on every change,
 * the blocklist's expiry by time included; the clock's advance and reset too). `stateParts()` caches the
 * serialised state per version, so a reader of an unchanged state costs no serialisation and a reader
 * after a change can never be handed the old one. Each section's JSON is also cached under its own
 * version: after a request is journaled only the journal is serialised again, not 1,000 cases.
 */
export class Store {
  #version = 0;
  /** Tells this store's versions from another's (a restart starts counting again from 0). */
  readonly #id = `${Date.now().toString(36)}.${Math.random().toString(36).slice(2, 8)}`;
  readonly #sectionVersions: Record<Section, number> = {
    cases: 0,
    notifications: 0,
    blocklist: 0,
    journal: 0,
  };
  readonly #sectionJson = new Map<Section, { version: number; bytes: Buffer }>();
  /** When this state began (the service clock): the service's start, or its last reset. */
  #since: number;
  #cached: { version: number; head: Buffer[]; headLength: number } | undefined;

  readonly cases = new CaseStore(LIMITS.cases, LIMITS.caseBytes, this.#changed('cases'));
  readonly notifications = new NotificationStore(LIMITS.notifications, this.#changed('notifications'));
  readonly blocklist = new Blocklist(LIMITS.blocklistHistory, this.#changed('blocklist'));
  readonly connector = new CaseConnector(this.#changed());
  readonly journal = new Journal(LIMITS.journal, this.#changed('journal'));
  /** The service clock; moving it is a change (every `now` read after it differs, entries may expire). */
  readonly clock: Clock;

  constructor(clock: Clock) {
    this.#since = clock.now();
    const moved = this.#changed();
    this.clock = {
      now: () => clock.now(),
      advance: (ms) => {
        clock.advance(ms);
        moved();
      },
      reset: () => {
        clock.reset();
        moved();
      },
    };
  }

  #changed(section?: Section): () => void {
    return () => {
      this.#version++;
      if (section) this.#sectionVersions[section]++;
    };
  }

  now(): number {
    return this.clock.now();
  }

  /**
   * The state's version at `now`. Expiry is applied first, so an entry that expired by time alone (no
   * request since) is a change like any other.
   */
  versionAt(now: number): number {
    this.blocklist.count(now);
    return this.#version;
  }

  /**
   * A weak entity tag for the state at `now`: it changes with every change of the state, and only then.
   * `now` itself is not part of it (it moves every millisecond); see docs/hardening.md, "GET /state".
   */
  etagAt(now: number): string {
    return `W/"${this.#id}-${this.versionAt(now)}"`;
  }

  reset(): void {
    this.cases.clear();
    this.notifications.clear();
    this.blocklist.clear();
    this.journal.clear();
    this.connector.setMode('healthy');
    this.clock.reset();
    this.#since = this.clock.now();
  }

  snapshot(): State {
    const now = this.now();
    return {
      case_mode: this.connector.mode,
      cases: this.cases.list(),
      notifications: this.notifications.list(),
      blocklist: this.blocklist.active(now),
      blocklist_history: this.blocklist.history(now),
      journal: this.journal.list(),
      since: iso(this.#since),
      // Last, so that everything before it is the same for a whole state version (stateParts()).
      now: iso(now),
    };
  }

  /**
   * `JSON.stringify(this.snapshot())` at `now` in UTF-8, byte for byte (test/api/routes/state-cache.test.ts holds
   * it to that on a table of changes), as a head and a tail. The head is everything up to the value of
   * `now`: it depends on the state version alone, and is kept as parts, each section serialised and
   * encoded under its own version. The tail is `now` and the closing `"}`: the only bytes made per read.
   * No serialising, no encoding and no copy of the state per read (a copy of the state per read made GET
   * /state's p99 several times the physical limit's: docs/hardening.md). `now` is the last field so that
   * the head is one unchanging run of bytes, which a compressor can take once per version
   * (app/api/http/brotli-splice.ts). The parts are shared between readers: never write into them.
   */
  stateParts(now: number): { version: number; head: readonly Buffer[]; headLength: number; tail: Buffer } {
    const version = this.versionAt(now);
    let cached = this.#cached;
    if (cached?.version !== version) {
      const head = [
        Buffer.from(`{"case_mode":${JSON.stringify(this.connector.mode)},"cases":`),
        this.#section('cases', () => JSON.stringify(this.cases.list())),
        Buffer.from(',"notifications":'),
        this.#section('notifications', () => JSON.stringify(this.notifications.list())),
        Buffer.from(',"blocklist":'),
        this.#section('blocklist', () => {
          const active = JSON.stringify(this.blocklist.active(now));
          return `${active},"blocklist_history":${JSON.stringify(this.blocklist.history(now))}`;
        }),
        Buffer.from(',"journal":'),
        this.#section('journal', () => JSON.stringify(this.journal.list())),
        Buffer.from(`,"since":"${iso(this.#since)}","now":"`),
      ];
      cached = { version, head, headLength: head.reduce((n, p) => n + p.length, 0) };
      this.#cached = cached;
    }
    return { ...cached, tail: Buffer.from(`${iso(now)}"}`, 'latin1') };
  }

  #section(name: Section, serialise: () => string): Buffer {
    const version = this.#sectionVersions[name];
    const cached = this.#sectionJson.get(name);
    if (cached?.version === version) return cached.bytes;
    const bytes = Buffer.from(serialise());
    this.#sectionJson.set(name, { version, bytes });
    return bytes;
  }
}
