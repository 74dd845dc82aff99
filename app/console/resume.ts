/**
 * The console posts approval decisions to n8n's resume URLs, and only to those: never an open proxy. A
 * resume URL qualifies when its origin is the lab's public n8n origin and its path n8n's waiting-webhook
 * path; it is then rewritten onto the n8n address the console itself uses (compose: http://n8n:5678).
 */

import { postResume, type ResumeAnswer } from '../driver/resume.js';

/** n8n 2.x: `/webhook-waiting/<execution id>[/<suffix>]?signature=<hex>` (the acceptance host: a UUID). */
const WAITING_PATH = /^\/webhook-waiting\/[A-Za-z0-9-]{1,64}(\/[A-Za-z0-9_-]{1,64})?$/;

export type ResumeTarget = { ok: true; url: string } | { ok: false; reason: string };

export function resumeTarget(given: unknown, publicBase: string, internalBase: string): ResumeTarget {
  if (typeof given !== 'string' || given.length > 2048) return { ok: false, reason: 'not a URL' };
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  const publicUrl = new URL(publicBase);
  if (url.origin !== publicUrl.origin || url.username !== '' || url.password !== '') {
    return { ok: false, reason: `not on the lab's workflow platform (${publicUrl.origin})` };
  }
  // Both the raw and the parsed path must match: `%2e%2e`, `//` or `\` never pass.
  const rawPath = given.slice(url.origin.length).split(/[?#]/, 1)[0] ?? '';
  if (!WAITING_PATH.test(url.pathname) || rawPath !== url.pathname) {
    return { ok: false, reason: 'not a workflow resume URL (/webhook-waiting/<id>)' };
  }
  const params = [...url.searchParams.keys()];
  if (url.hash !== '' || params.some((k) => k !== 'signature') || params.length > 1) {
    return { ok: false, reason: 'a resume URL carries only its signature' };
  }
  const signature = url.searchParams.get('signature');
  const query = signature === null ? '' : `?signature=${encodeURIComponent(signature)}`;
  return { ok: true, url: `${internalBase.replace(/\/+$/, '')}${url.pathname}${query}` };
}

export type { ResumeAnswer as PostOutcome } from '../driver/resume.js';

/** POSTs the decision (app/driver/resume.ts), retrying n8n's 409 "running already" for up to retryForMs. */
export function postDecision(
  url: string,
  body: unknown,
  options: { retryForMs?: number; intervalMs?: number; fetchImpl?: typeof fetch } = {},
): Promise<ResumeAnswer> {
  return postResume(url, body, { ...options, retryOn: [409] });
}

/** What the workflow's answer to a decision means, in one sentence for the page. */
export function describeResume(status: number, attempts: number): string {
  const tries =
    attempts > 1 ? ` after ${attempts} tries (n8n said "running already" until its Wait node waited)` : '';
  if (status < 300) return `The workflow accepted the decision${tries}.`;
  if (status === 409) return `The workflow still answers 409 "running already"${tries}; try again.`;
  if (status === 401) return 'The workflow refused the resume URL (bad or missing signature).';
  if (status === 404) return 'Nothing waits on this URL any more (answered, timed out, or the run ended).';
  return `The workflow answered ${status}.`;
}
