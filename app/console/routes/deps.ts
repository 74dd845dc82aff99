/** What the console is built from: each route module takes only its part of these dependencies. */
import type { MockApiClient } from '../../mock-api-client/client.js';
import type { Starters } from '../../n8n/starter.js';
import type { RunTutor } from '../../tutor/tutor.js';
import type { CheckRunner } from '../check-run.js';
import type { StateFeed } from '../feed.js';
import type { Sessions } from '../session.js';

/** What the console is built from: createConsoleApp(deps) reads no environment; each route module takes its part. */
export interface ConsoleDeps {
  feed: StateFeed;
  api: MockApiClient;
  /** The workflow platform as the console reaches it, and its public origin (what resume URLs carry). */
  n8nUrl: string;
  n8nPublicUrl: string;
  /** Host names answered besides 127.0.0.1, [::1] and localhost. */
  allowedHosts: readonly string[];
  /** The per-process token state-changing requests carry in `x-console-token`. */
  token: string;
  /** With the lab's secret set: the sessions a login opened; every request then needs one. */
  sessions?: Sessions | undefined;
  /** The alert webhook's path the test alerts go to (default RESPONSE_WEBHOOK_PATH). */
  alertWebhookPath?: string;
  /** The mock API as the workflow reaches it: the served OpenAPI document's `servers`. */
  workflowApiUrl?: string | undefined;
  /**
   * Stops the workflow platform's unfinished runs; Reset calls it before it clears the mock API, so no
   * run of the previous exercise writes into the next (the compose lab, with the lab's n8n API key).
   */
  stopRuns?: () => Promise<number>;
  /** The Check control: runs the stage checker as a child process, one run at a time. */
  checks?: CheckRunner;
  /** The tutor of the trainee's runs (with n8n's API key): GET /api/runs and the `runs` events. */
  tutor?: RunTutor | undefined;
  /** n8n's public-API key: the Add a starter control adds the starter with it. */
  n8nApiKey?: string | undefined;
  /** LAB_STARTERS: `off` leaves the Add a starter control off the page and refuses it (default on). */
  starters?: Starters;
  /** Retry window for n8n's 409 "running already" (ms). */
  resumeRetryMs?: number;
  fetchImpl?: typeof fetch;
}
