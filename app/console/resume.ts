/**
 * The console posts approval decisions to n8n's resume URLs, and only to those: never an open proxy. A
 * resume URL qualifies when its origin is the lab's public n8n origin and its path n8n's waiting-webhook
 * path; it is then rewritten onto the n8n address the console itself uses (compose: http://n8n:5678).
 */

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

export interface PostOutcome {
  status: number;
  attempts: number;
  body: string;
}

/**
 * POSTs the decision. n8n answers 409 ("running already") to a decision that arrives before its Wait node
 * is waiting: that is retried for up to retryForMs. Redirects are never followed.
 */
export async function postDecision(
  url: string,
  body: unknown,
  { retryForMs = 5000, intervalMs = 250, fetchImpl = fetch } = {},
): Promise<PostOutcome> {
  const deadline = Date.now() + retryForMs;
  for (let attempts = 1; ; attempts++) {
    const res = await fetchImpl(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(5000),
    });
    const text = (await res.text()).slice(0, 2000);
    if (res.status !== 409 || Date.now() + intervalMs > deadline)
      return { status: res.status, attempts, body: text };
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
