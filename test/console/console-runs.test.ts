/**
 * The tutor in the console (createConsoleApp served on loopback, a RunTutor over a workflow platform in
 * memory): GET /api/runs answers its view, polling once when no page listens; /api/events sends it as a
 * `runs` event on connecting and at each change, and it is an open stream that keeps the tutor polling;
 * without a tutor (no n8n API key) 503 in one line; behind the lab's secret, nothing without a session.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createConsoleApp } from '../../app/console/app.js';
import { Sessions } from '../../app/console/session.js';
import type { ApiCaller } from '../../app/mock-api-client/client.js';
import type { RunDetail, RunFeed, RunHead } from '../../app/runs/run.js';
import type { ExplainInput } from '../../app/tutor/explain.js';
import type { Explanation } from '../../app/tutor/explanation.js';
import { RunTutor } from '../../app/tutor/tutor.js';
import type { TutorView } from '../../app/tutor/tutor-view.js';
import { type Served, serveOnLoopback } from '../helpers/loopback-http.js';
import { standInDeps } from './stand-in-deps.js';

const STARTED = '2026-11-26T10:00:00.000Z';
const runs = new Map<string, RunHead>();
let listed = 0;
const feed: RunFeed = {
  async recent() {
    listed++;
    return [...runs.values()];
  },
  async detail(id): Promise<RunDetail | null> {
    const head = runs.get(id);
    if (head === undefined) return null;
    const view = { id, url: null, status: head.status, nodes: [], lastNode: null };
    return { head, view, workflow: 'Mine', trigger: null };
  },
};
const api: ApiCaller = {
  describe: 'in memory',
  request: async () => ({
    status: 200,
    body: {
      case_mode: 'healthy',
      cases: [],
      notifications: [],
      blocklist: [],
      blocklist_history: [],
      journal: [],
    },
  }),
};
const explain = ({ detail }: ExplainInput): Explanation => ({
  execution_id: detail.head.id,
  url: null,
  workflow: detail.workflow,
  from_editor: false,
  status: detail.head.status,
  started_at: detail.head.startedAt,
  stopped_at: detail.head.stoppedAt,
  alert: null,
  kind: 'other',
  kind_text: 'no alert of the exercise',
  stages: [],
  received: [],
  received_certain: true,
  verdict: 'cannot-tell',
  unmet: null,
  summary: 'nothing to judge it by',
});
const head = (id: string, status: string): RunHead => ({
  id,
  status,
  startedAt: STARTED,
  stoppedAt: STARTED,
  workflowId: 'wf-1',
  mode: 'webhook',
});

const served: Served[] = [];
const tutors: RunTutor[] = [];
afterEach(async () => {
  for (const t of tutors.splice(0)) t.stop();
  for (const s of served.splice(0)) await s.close();
  runs.clear();
  listed = 0;
});

async function serveConsole(withTutor: boolean, secret?: string) {
  const tutor = withTutor
    ? new RunTutor({ feed, api, explain, pollMs: 30, identityOf: async () => null })
    : undefined;
  if (tutor) {
    tutor.start();
    tutors.push(tutor);
  }
  const deps = standInDeps({
    tutor,
    ...(secret ? { sessions: new Sessions(secret, { cookie: 'test' }) } : {}),
  });
  const s = await serveOnLoopback(createConsoleApp(deps).fetch);
  served.push(s);
  return { url: s.url, tutor };
}

describe('the tutor in the console', () => {
  it('GET /api/runs answers the explained runs, polling once when no page listens', async () => {
    runs.set('5', head('5', 'success'));
    const { url, tutor } = await serveConsole(true);
    const res = await fetch(`${url}/api/runs`);
    expect(res.status).toBe(200);
    const view = (await res.json()) as TutorView;
    expect(view).toMatchObject({
      version: 1,
      trouble: null,
      runs: [{ execution_id: '5', summary: 'nothing to judge it by' }],
    });
    expect(listed).toBe(1);
    await new Promise((r) => setTimeout(r, 150));
    // Nobody listening: no poll of its own.
    expect(listed).toBe(1);
    expect(tutor?.polling).toBe(false);
  });

  it('streams the runs on /api/events: on connecting, then each change; the stream keeps the tutor polling', async () => {
    const { url, tutor } = await serveConsole(true);
    const controller = new AbortController();
    const res = await fetch(`${url}/api/events`, { signal: controller.signal });
    const reader = res.body?.getReader();
    if (reader === undefined) throw new Error('no stream');
    let text = '';
    const decoder = new TextDecoder();
    const readUntil = async (pattern: RegExp) => {
      const deadline = Date.now() + 5000;
      while (!pattern.test(text) && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
    };
    await readUntil(/event: runs\ndata: [^\n]*\n/);
    expect(text).toContain('event: runs\ndata: {"version":0,"trouble":null,"runs":[]}');
    expect(tutor?.polling).toBe(true);
    runs.set('6', head('6', 'error'));
    await readUntil(/"execution_id":"6"/);
    expect(text).toMatch(/event: runs\ndata: \{"version":1,"trouble":null,"runs":\[\{"execution_id":"6"/);
    controller.abort();
    await new Promise((r) => setTimeout(r, 100));
    expect(tutor?.polling).toBe(false);
  });

  it('without a tutor: 503 in one line, and no runs event', async () => {
    const { url } = await serveConsole(false);
    const res = await fetch(`${url}/api/runs`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      ok: false,
      error: {
        code: 'runs_unavailable',
        message: 'This console has no n8n API key (N8N_API_KEY): it cannot read your runs.',
      },
    });
  });

  it('behind the lab secret: no runs without a session (the control: the same console answers with one)', async () => {
    runs.set('7', head('7', 'success'));
    const { url } = await serveConsole(true, 'a-secret-of-the-lab');
    const res = await fetch(`${url}/api/runs`);
    expect(res.status).toBe(401);
    expect(JSON.stringify(await res.json())).not.toContain('"execution_id"');
    const events = await fetch(`${url}/api/events`);
    expect(events.status).toBe(401);
    const login = await fetch(`${url}/login`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: url,
        'sec-fetch-site': 'same-origin',
      },
      body: 'secret=a-secret-of-the-lab',
      redirect: 'manual',
    });
    const cookie = login.headers.getSetCookie()[0]?.split(';')[0] ?? '';
    expect(cookie).toMatch(/^test=/);
    const signedIn = await fetch(`${url}/api/runs`, { headers: { cookie } });
    expect(signedIn.status).toBe(200);
    expect(((await signedIn.json()) as TutorView).runs.map((r) => r.execution_id)).toEqual(['7']);
  });
});
