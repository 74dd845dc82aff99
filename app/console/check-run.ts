/**
 * The Check control: runs the stage checker as a child process of the same image (the console imports no
 * tool), one run at a time, its output lines kept for the page and its run time bounded. The stage is
 * parsed with the checker's own schema and passed in an argument array: no shell ever sees it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CHECK_STAGES, type CheckEvent, type CheckRunView, type CheckStage } from './check-view.js';

/** What to check: a stage with every stage before it, or (`only`) that stage on its own. */
export interface CheckRequest {
  stage: CheckStage;
  only: boolean;
}

/** The checker as built into the image: `node dist/app/check/cli.js`. */
export const DEFAULT_CHECKER = 'dist/app/check/cli.js';
/** A check that takes longer is killed; `all` on the lab's default time limits takes a few minutes. */
export const CHECK_TIMEOUT_MS = 15 * 60_000;
/** Lines kept for a page that opens during (or after) a run. */
const KEPT_LINES = 400;
const LINE_MAX = 2000;

export interface CheckRunnerOptions {
  /** The checker script, run by this Node (`.ts` through tsx: the test set-up). */
  checker: string;
  /** How the checker reaches the mock API: its Unix socket (the compose lab) or its URL (make run). */
  api: { kind: 'socket'; path: string } | { kind: 'http'; url: string } | null;
  n8nUrl: string;
  /** The editor's address as the trainee's browser sees it: the checker's links to each run start with it. */
  editorUrl?: string;
  /** Where the checker writes its report: the file the console's last-check panel reads. */
  reportPath: string | null;
  webhookPath: string;
  /** Passed on to the checker: N8N_API_KEY, APPROVAL_TIMEOUT_SECONDS (and PATH). */
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs?: number;
  cwd?: string;
}

const PASSED_ENV = ['PATH', 'N8N_API_KEY', 'APPROVAL_TIMEOUT_SECONDS', 'N8N_ALLOWED_SUBNET'] as const;

export class CheckRunner {
  readonly #opts: CheckRunnerOptions;
  readonly #listeners = new Set<(event: CheckEvent) => void>();
  #child: ChildProcess | undefined;
  #timer: NodeJS.Timeout | undefined;
  #view: CheckRunView;

  constructor(opts: CheckRunnerOptions) {
    this.#opts = opts;
    this.#view = {
      unavailable: unavailableReason(opts),
      stages: CHECK_STAGES,
      running: false,
      stage: null,
      only: false,
      pid: null,
      started_at: null,
      finished_at: null,
      exit: null,
      stopped: null,
      line_count: 0,
      lines: [],
    };
  }

  get view(): CheckRunView {
    return this.#view;
  }

  subscribe(listener: (event: CheckEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The checker's command line for a check: node, its script, then the arguments. */
  argv({ stage, only }: CheckRequest): string[] {
    const { api, reportPath } = this.#opts;
    if (api === null || reportPath === null) throw new Error(this.#view.unavailable ?? 'unavailable');
    const node = this.#opts.checker.endsWith('.ts') ? ['--import', 'tsx'] : [];
    const n8n = this.#opts.n8nUrl;
    return [
      ...node,
      this.#opts.checker,
      '--stage',
      stage,
      ...(only ? ['--only'] : []),
      '--target',
      'n8n',
      ...(api.kind === 'socket' ? ['--api-socket', api.path] : ['--api', api.url]),
      '--n8n',
      n8n,
      '--resume-origin',
      n8n,
      ...(this.#opts.editorUrl === undefined ? [] : ['--editor-url', this.#opts.editorUrl]),
      '--webhook-path',
      this.#opts.webhookPath,
      '--report',
      reportPath,
    ];
  }

  /** Starts a check; `busy` while one runs, `unavailable` without a mock API or a report path. `all` is
   * never checked `only` (the checker refuses it; the console's request schema already does). */
  start(
    request: CheckRequest,
  ): { ok: true; view: CheckRunView } | { ok: false; reason: 'busy' | 'unavailable' } {
    if (this.#view.unavailable !== null) return { ok: false, reason: 'unavailable' };
    if (this.#child !== undefined) return { ok: false, reason: 'busy' };
    const env: Record<string, string> = {};
    for (const name of PASSED_ENV) {
      const value = this.#opts.env[name];
      if (value !== undefined && value !== '') env[name] = value;
    }
    const { stage } = request;
    const only = request.only && stage !== 'all';
    const child = spawn(process.execPath, this.argv({ stage, only }), {
      cwd: this.#opts.cwd ?? process.cwd(),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: false,
    });
    this.#child = child;
    this.#update({
      running: true,
      stage,
      only,
      pid: child.pid ?? null,
      started_at: new Date().toISOString(),
      finished_at: null,
      exit: null,
      stopped: null,
      line_count: 0,
      lines: [],
    });
    for (const stream of [child.stdout, child.stderr]) {
      let rest = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        const parts = (rest + chunk).split('\n');
        rest = parts.pop() ?? '';
        for (const line of parts) this.#line(line);
      });
      stream?.on('end', () => {
        if (rest !== '') this.#line(rest);
        rest = '';
      });
    }
    this.#timer = setTimeout(() => {
      const ms = this.#opts.timeoutMs ?? CHECK_TIMEOUT_MS;
      const limit = ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
      this.#kill(`stopped by the console after ${limit} (the check's time limit)`);
    }, this.#opts.timeoutMs ?? CHECK_TIMEOUT_MS);
    child.on('error', (err) => this.#line(`console: could not start the checker: ${err.message}`));
    child.on('close', (code, signal) => {
      clearTimeout(this.#timer);
      this.#child = undefined;
      this.#update({
        running: false,
        pid: null,
        finished_at: new Date().toISOString(),
        exit: code !== null ? String(code) : (signal ?? 'unknown'),
      });
    });
    return { ok: true, view: this.#view };
  }

  /** Ends a running check (the console is stopping); resolves when it exited. */
  async stop(reason = 'stopped: the console is shutting down'): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    this.#kill(reason);
    await closed;
  }

  #kill(reason: string): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    this.#update({ stopped: reason });
    this.#line(`console: ${reason}`);
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      return; // exited meanwhile
    }
    // A checker that ignores SIGTERM is killed outright.
    setTimeout(() => {
      if (this.#child?.pid === pid) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // exited meanwhile
        }
      }
    }, 5000).unref();
  }

  #line(raw: string): void {
    const text = raw.length > LINE_MAX ? `${raw.slice(0, LINE_MAX)}…` : raw;
    const n = this.#view.line_count + 1;
    const lines = [...this.#view.lines, text].slice(-KEPT_LINES);
    this.#view = { ...this.#view, line_count: n, lines };
    for (const listener of this.#listeners) listener({ kind: 'line', n, text });
  }

  #update(change: Partial<CheckRunView>): void {
    this.#view = { ...this.#view, ...change };
    for (const listener of this.#listeners) listener({ kind: 'run', view: this.#view });
  }
}

function unavailableReason(opts: CheckRunnerOptions): string | null {
  if (opts.api === null)
    return 'Checking from the console needs the mock API (MOCK_API_SOCKET or MOCK_API_URL); use make check.';
  if (opts.reportPath === null)
    return 'Checking from the console needs a report path (CHECK_REPORT); use make check.';
  if (!existsSync(resolve(opts.cwd ?? process.cwd(), opts.checker)))
    return `The stage checker is not at ${opts.checker} (npm run build); use make check.`;
  return null;
}
