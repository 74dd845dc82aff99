/** Where a store's refusal becomes the contract's error: its code, sentence and extra members. */
import type { Outcome, Refusal } from '../store/outcome.js';
import { ApiError } from './errors.js';

/** The one place a store's refusal becomes the contract's error: code, sentence, extra members. */
export function refusalError(refusal: Refusal): ApiError {
  switch (refusal.kind) {
    case 'address_not_blockable':
      return new ApiError(
        refusal.kind,
        `Only the reserved lab address ${refusal.blockable} can be blocked; ${refusal.ip} was refused.`,
      );
    case 'already_blocked':
      return new ApiError(refusal.kind, `${refusal.entry.ip} is already blocked; nothing was changed.`, {
        extra: { entry: refusal.entry },
      });
    case 'not_blocked':
      return new ApiError(refusal.kind, `${refusal.ip} is not on the blocklist.`);
    case 'case_limit_reached':
      return new ApiError(
        refusal.kind,
        `The lab holds at most ${refusal.limit} cases; reset the service (POST /reset) to start a new exercise.`,
      );
    case 'case_too_large':
      return new ApiError(
        refusal.kind,
        `A case may hold at most ${refusal.maxBytes} characters of JSON; this update would grow it past that. Nothing was changed.`,
      );
    case 'notification_limit_reached':
      return new ApiError(
        refusal.kind,
        `The lab holds at most ${refusal.limit} notifications; reset the service (POST /reset) to start a new exercise.`,
      );
    case 'case_connector_failed':
      return new ApiError(refusal.kind, 'The case connector is failing (case_mode); nothing was written.');
  }
}

/** The outcome's value, or its refusal thrown as the contract's error (rendered by the one onError). */
export function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw refusalError(outcome.refusal);
}
