/**
 * What an approval request is, for the stage checker and the console alike: any notification that carries
 * a workflow resume URL (n8n's Wait node gives it as `$execution.resumeUrl`:
 * `<origin>/webhook-waiting/<execution id>?signature=<hex>`) in any field, at any depth, alone or inside a
 * sentence. The channel does not matter. docs/console.md states this contract for trainees.
 */

/** An http(s) URL whose path holds /webhook-waiting/; it ends at whitespace, a quote or an angle bracket. */
const RESUME_URL = /https?:\/\/[^\s"'<>]+\/webhook-waiting\/[^\s"'<>]+/;
/** Punctuation that ends a sentence around a URL rather than belonging to it. */
const TRAILING = /[.,;:!?)\]]+$/;

/** The first resume URL in the value, depth first in field order; undefined when there is none. */
export function resumeUrlIn(value: unknown): string | undefined {
  let found: string | undefined;
  walk(value, (_key, item) => {
    if (found !== undefined || typeof item !== 'string') return;
    const match = RESUME_URL.exec(item)?.[0];
    if (match !== undefined) found = match.replace(TRAILING, '');
  });
  return found;
}

/** Visits every (key, value) pair of a JSON value, depth first; array items have the key of their array. */
export function walk(
  value: unknown,
  visit: (key: string | null, value: unknown) => void,
  key: string | null = null,
) {
  visit(key, value);
  if (Array.isArray(value)) for (const item of value) walk(item, visit, key);
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) walk(v, visit, k);
}

/** An approval request as the console shows it. */
export interface ApprovalFields {
  resume_url: string;
  /** `subject` when it is a string, else "Approval requested". */
  subject: string;
  /** `message` (the mock API requires it on every notification). */
  message: string;
  /** `event_id` when it is a string: the request closes once that event's case is written after it. */
  event_id: string | null;
}

const DEFAULT_SUBJECT = 'Approval requested';

/** The approval request a notification makes, or null when it carries no resume URL. */
export function approvalRequestOf(notification: Record<string, unknown>): ApprovalFields | null {
  const resumeUrl = resumeUrlIn(notification);
  if (resumeUrl === undefined) return null;
  const { subject, message, event_id: eventId } = notification;
  return {
    resume_url: resumeUrl,
    subject: typeof subject === 'string' && subject.trim() !== '' ? subject : DEFAULT_SUBJECT,
    message: typeof message === 'string' ? message : '',
    event_id: typeof eventId === 'string' ? eventId : null,
  };
}
