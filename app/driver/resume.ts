/**
 * An approver's decision POSTed to a workflow's resume URL (n8n's `$execution.resumeUrl`), as the console
 * and the acceptance matrix both send it. n8n sends the approval request just before its Wait node starts
 * waiting, so an early decision can find nothing waiting yet: the statuses in `retryOn` (409 "running
 * already", and 404 before the wait is registered) are retried until `retryForMs` has passed. Redirects
 * are never followed; a URL that cannot be reached throws.
 */
export interface ResumeAnswer {
  status: number;
  attempts: number;
  /** The answer's first 2,000 characters. */
  body: string;
}

export interface ResumeOptions {
  retryOn?: readonly number[];
  retryForMs?: number;
  intervalMs?: number;
  /** Told of each answer that is retried. */
  onRetry?: (status: number) => void;
  fetchImpl?: typeof fetch;
}

export async function postResume(
  url: string,
  body: unknown,
  { retryOn = [409], retryForMs = 5000, intervalMs = 250, onRetry, fetchImpl = fetch }: ResumeOptions = {},
): Promise<ResumeAnswer> {
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
    if (!retryOn.includes(res.status) || Date.now() + intervalMs > deadline)
      return { status: res.status, attempts, body: text };
    onRetry?.(res.status);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
