/**
 * The Check control over real HTTP, the console run as its real entry point with a stand-in checker
 * (test/console/stand-in-checker.mjs, CONSOLE_CHECKER): the guard on POST /api/check (token, JSON,
 * origin, the stage parsed), the exact command line and environment the checker gets, one check at a time
 * (409), the time limit and the console's shutdown ending the checker by PID, the lines on /api/events,
 * and a console that cannot check saying why.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GUARDED,
  guardAnswers,
  postControl,
  type RunningConsole,
  runConsole,
  stopConsoles,
} from './harness.js';

const STAND_IN = 'test/console/stand-in-checker.mjs';
const N8N = 'http://127.0.0.1:9';
/** The editor as the trainee's browser reaches it: the checker's links to each run start with it. */
const EDITOR = 'http://127.0.0.1:5699';

type Console = RunningConsole & { report: string };

const started: Console[] = [];
let dir: string;

async function startConsole(env: Record<string, string> = {}): Promise<Console> {
  const report = join(dir, `check-${started.length}.json`);
  const c = {
    ...(await runConsole({
      MOCK_API_SOCKET: join(dir, 'no-mock-api.sock'),
      N8N_URL: N8N,
      N8N_PUBLIC_URL: EDITOR,
      CHECK_REPORT: report,
      CONSOLE_CHECKER: STAND_IN,
      N8N_API_KEY: 'lab-api-key',
      APPROVAL_TIMEOUT_SECONDS: '45',
      // n8n's subnet (the stand-in's is loopback): the checker guards its connections with it too.
      N8N_ALLOWED_SUBNET: '127.0.0.0/8',
      UNRELATED_SECRET: 'must-not-reach-the-checker',
      ...env,
    })),
    report,
  };
  started.push(c);
  return c;
}

const post = (c: Console, body: unknown) => postControl(c, '/api/check', body);

interface Run {
  running: boolean;
  stage: string | null;
  pid: number | null;
  exit: string | null;
  stopped: string | null;
  unavailable: string | null;
  lines: string[];
}
const run = async (c: Console): Promise<Run> => (await fetch(`${c.url}/api/check`)).json() as Promise<Run>;

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'soar-console-check-'));
});

afterAll(async () => {
  await stopConsoles(started);
  rmSync(dir, { recursive: true, force: true });
});

describe('POST /api/check', () => {
  it('is guarded like the other controls, parses the stage, and runs the checker with an exact argv', async () => {
    const c = await startConsole();
    const argvFile = `${c.report}.argv.json`;
    // Refusals first, each next to the valid request below; none of them starts the checker.
    expect(await guardAnswers(c, '/api/check', { stage: 'webhook' })).toEqual(GUARDED);
    for (const stage of ['webhook; touch /tmp/x', '--help', 'Webhook', '', 42]) {
      const res = await post(c, { stage });
      expect(res.status, String(stage)).toBe(400);
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(existsSync(argvFile)).toBe(false);

    const res = await post(c, { stage: 'enrich' });
    expect(res.status).toBe(202);
    const done = await until(
      () => run(c),
      (r) => !r.running,
    );
    expect(done).toMatchObject({ stage: 'enrich', exit: '0', stopped: null, unavailable: null });
    expect(done.lines).toEqual([
      'stand-in checker: checking enrich',
      'PASS      enrich  first expectation',
      'stand-in checker: a line on stderr',
      'PASS      enrich  the stand-in expectation',
    ]);
    const seen = JSON.parse(readFileSync(argvFile, 'utf8')) as {
      argv: string[];
      env: Record<string, string>;
    };
    expect(seen.argv).toEqual([
      '--stage',
      'enrich',
      '--target',
      'n8n',
      '--api-socket',
      join(dir, 'no-mock-api.sock'),
      '--n8n',
      N8N,
      '--resume-origin',
      N8N,
      '--editor-url',
      EDITOR,
      '--webhook-path',
      'suspicious-login',
      '--report',
      c.report,
    ]);
    // Only what the checker needs is passed on: not the console's other settings or secrets.
    expect(Object.keys(seen.env).sort()).toEqual([
      'APPROVAL_TIMEOUT_SECONDS',
      'N8N_ALLOWED_SUBNET',
      'N8N_API_KEY',
      'PATH',
    ]);
    expect(seen.env).toMatchObject({
      N8N_API_KEY: 'lab-api-key',
      APPROVAL_TIMEOUT_SECONDS: '45',
      N8N_ALLOWED_SUBNET: '127.0.0.0/8',
    });
    // The report it wrote is what the console's last-check panel reads.
    const state = await until(
      async () =>
        (await (await fetch(`${c.url}/api/state`)).json()) as { check: { requested?: string } | null },
      (s) => s.check?.requested === 'enrich',
    );
    expect(state.check?.requested).toBe('enrich');
  });

  it('checks a stage on its own (--only) or with every stage before it, and says which', async () => {
    const c = await startConsole();
    const argvOf = () =>
      (JSON.parse(readFileSync(`${c.report}.argv.json`, 'utf8')) as { argv: string[] }).argv;
    // on its own is one stage, never all; and a yes or no, nothing else. None of these starts the checker.
    for (const body of [
      { stage: 'all', only: true },
      { stage: 'enrich', only: 'yes' },
    ]) {
      const res = await post(c, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^only: /);
    }
    expect(existsSync(`${c.report}.argv.json`)).toBe(false);

    const alone = await post(c, { stage: 'enrich', only: true });
    expect(alone.status).toBe(202);
    expect(((await alone.json()) as { message: string }).message).toBe(
      'check of enrich on its own started; its lines appear under Check',
    );
    const done = await until(
      () => run(c),
      (r) => !r.running,
    );
    expect(done).toMatchObject({ stage: 'enrich', only: true, exit: '0' });
    expect(argvOf().slice(0, 4)).toEqual(['--stage', 'enrich', '--only', '--target']);
    const state = await until(
      async () =>
        (await (await fetch(`${c.url}/api/state`)).json()) as { check: { stages?: unknown[] } | null },
      (s) => s.check !== null,
    );
    expect(state.check?.stages).toEqual([
      { stage: 'enrich', status: 'pass', counts: { pass: 1, fail: 0, unjudged: 0 } },
    ]);

    const upTo = await post(c, { stage: 'enrich', only: false });
    expect(((await upTo.json()) as { message: string }).message).toBe(
      'check of everything up to enrich started; its lines appear under Check',
    );
    expect(
      await until(
        () => run(c),
        (r) => !r.running,
      ),
    ).toMatchObject({ stage: 'enrich', only: false });
    expect(argvOf()).not.toContain('--only');
  });

  it('hands the page each failure’s run as the checker wrote it: node, address, why (drawn as text)', async () => {
    const c = await startConsole();
    expect((await post(c, { stage: 'validate' })).status).toBe(202);
    const state = await until(
      async () =>
        (await (await fetch(`${c.url}/api/state`)).json()) as {
          check: { results?: { status: string; run?: unknown }[] } | null;
        },
      (s) => s.check !== null,
    );
    expect(state.check?.results?.[0]).toMatchObject({
      status: 'fail',
      run: {
        execution_id: '42',
        url: `${N8N}/workflow/wf-7/executions/42`,
        status: 'error',
        node: '<img src=x onerror="document.title=1">Record',
        why: 'Record errored: <b>the case system refused</b> & gave up',
      },
    });
    // The page draws it with textContent only: the script that draws the panel sets no HTML.
    const script = await (await fetch(`${c.url}/console.js`)).text();
    expect(script).toContain('open run ');
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  });

  it('uses --api URL for a console that reaches the mock API over TCP (make run)', async () => {
    const c = await startConsole({ MOCK_API_SOCKET: '', MOCK_API_URL: 'http://127.0.0.1:8081' });
    expect((await post(c, { stage: 'all' })).status).toBe(202);
    const done = await until(
      () => run(c),
      (r) => !r.running,
    );
    expect(done.exit).toBe('0');
    const { argv } = JSON.parse(readFileSync(`${c.report}.argv.json`, 'utf8')) as { argv: string[] };
    expect(argv.slice(0, 6)).toEqual(['--stage', 'all', '--target', 'n8n', '--api', 'http://127.0.0.1:8081']);
    expect(argv).not.toContain('--api-socket');
  });

  it('runs one check at a time: a second is refused with 409 while the first runs, and the limit kills it', async () => {
    const c = await startConsole({ CONSOLE_CHECK_TIMEOUT_SECONDS: '3' });
    expect((await post(c, { stage: 'approve' })).status).toBe(202);
    const running = await until(
      () => run(c),
      (r) => r.lines.length >= 2,
    );
    expect(running.running).toBe(true);
    const pid = running.pid ?? -1;
    expect(alive(pid)).toBe(true);
    const second = await post(c, { stage: 'webhook' });
    expect(second.status).toBe(409);
    const body = (await second.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('check_running');
    expect(body.error.message).toMatch(/A check \(everything up to approve, started .*\) is running already/);

    const ended = await until(
      () => run(c),
      (r) => !r.running,
      10_000,
    );
    expect(ended.stopped).toBe("stopped by the console after 3 s (the check's time limit)");
    expect(ended.exit).toBe('SIGTERM');
    expect(alive(pid)).toBe(false);
    // Free again.
    expect((await post(c, { stage: 'validate' })).status).toBe(202);
    const failed = await until(
      () => run(c),
      (r) => !r.running,
    );
    expect(failed).toMatchObject({ stage: 'validate', exit: '1', stopped: null });
  });

  it('ends a running check when the console stops', async () => {
    const c = await startConsole();
    expect((await post(c, { stage: 'approve' })).status).toBe(202);
    const running = await until(
      () => run(c),
      (r) => r.lines.length >= 1,
    );
    const pid = running.pid ?? -1;
    expect(alive(pid)).toBe(true);
    c.proc.child.kill('SIGTERM');
    const exited = await c.proc.exited;
    expect(exited.code).toBe(0);
    expect(alive(pid)).toBe(false);
  });

  it('streams the run and its lines on /api/events', async () => {
    const c = await startConsole();
    const controller = new AbortController();
    const res = await fetch(`${c.url}/api/events`, { signal: controller.signal });
    const reader = res.body?.getReader();
    expect(reader).toBeDefined();
    expect((await post(c, { stage: 'decide' })).status).toBe(202);
    let text = '';
    const decoder = new TextDecoder();
    const deadline = Date.now() + 10_000;
    while (reader && Date.now() < deadline && !/"exit":"0"/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    controller.abort();
    expect(text).toContain('event: check-line\ndata: {"n":1,"text":"stand-in checker: checking decide"}');
    expect(text).toContain(
      'event: check-line\ndata: {"n":4,"text":"PASS      decide  the stand-in expectation"}',
    );
    expect(text).toMatch(/event: check-run\ndata: \{[^\n]*"running":true,"stage":"decide"/);
    expect(text).toMatch(/event: check-run\ndata: \{[^\n]*"running":false[^\n]*"exit":"0"/);
  });

  it('says why when this console cannot check', async () => {
    const c = await startConsole({ CONSOLE_CHECKER: 'dist/no-such-checker.js' });
    const view = await run(c);
    expect(view.unavailable).toBe(
      'The stage checker is not at dist/no-such-checker.js (npm run build); use make check.',
    );
    const res = await post(c, { stage: 'webhook' });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(view.unavailable);
  });
});
