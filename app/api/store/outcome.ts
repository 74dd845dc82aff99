/** Why the state refused a change or a read, as domain facts (no HTTP), and an outcome that carries it. */
import type { BlockEntry } from '../schemas/blocklist.js';

/**
 * Why the state refused a change or a read: domain facts, no HTTP. The routes turn a refusal into an
 * ApiError in one place (app/api/http/refusal.ts). Each kind is also the error code it is answered with
 * (refusal.ts passes it to ApiError, so the compiler holds them to the code table).
 */
export type Refusal =
  | { kind: 'address_not_blockable'; ip: string; blockable: string }
  | { kind: 'already_blocked'; entry: BlockEntry }
  | { kind: 'not_blocked'; ip: string }
  | { kind: 'case_limit_reached'; limit: number }
  | { kind: 'case_too_large'; maxBytes: number }
  | { kind: 'notification_limit_reached'; limit: number }
  | { kind: 'case_connector_failed' };

export type Outcome<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

export const done = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const refused = <T = never>(refusal: Refusal): Outcome<T> => ({ ok: false, refusal });
