/**
 * runWorkflow's model of n8n (app/simulator/engine.ts), held on small hand-made exports: what each node kind
 * hands on, If's strict types, an HTTP Request's error output, a Wait's time limit, `$runIndex`, and that
 * anything outside the model ends the run with an error naming it instead of being run by a wrong model.
 * `make e2e` holds the model equal to the pinned n8n; this holds the simulator to the model.
 */
import { describe, expect, it } from 'vitest';
import {
  type HttpAnswer,
  type HttpCall,
  type NodeStep,
  type Resume,
  type RunIo,
  runWorkflow,
  type SimRun,
} from '../../app/simulator/engine.js';
import type { Json, N8nConnection, N8nExport, N8nExportNode } from '../../app/workflow/export.js';

type Kind = 'webhook' | 'code' | 'if' | 'httpRequest' | 'wait' | 'stopAndError' | 'set';

function n(
  name: string,
  kind: Kind,
  parameters: Json = {},
  extra: Partial<N8nExportNode> = {},
): N8nExportNode {
  return {
    id: name,
    name,
    type: `n8n-nodes-base.${kind}`,
    typeVersion: 1,
    position: [0, 0],
    parameters,
    ...extra,
  };
}

/** An export of `nodes` (a Webhook first), `links` as `From#output → To` (output 0 when left out). */
function workflow(nodes: N8nExportNode[], links: string[]): N8nExport {
  const connections: N8nExport['connections'] = {};
  for (const link of links) {
    const [, from = '', output = '0', to = ''] = /^(.+?)(?:#(\d))? → (.+)$/.exec(link) ?? [];
    const main = connections[from]?.main ?? [];
    connections[from] = { main };
    while (main.length <= Number(output)) main.push([]);
    (main[Number(output)] as N8nConnection[]).push({ node: to, type: 'main', index: 0 });
  }
  return {
    id: 'w',
    name: 'w',
    active: false,
    settings: {},
    nodes,
    connections,
    pinData: {},
    meta: {},
    tags: [],
  };
}

const code = (name: string, js: string) => n(name, 'code', { jsCode: js });
const hook = n('Webhook', 'webhook', { path: 'p', httpMethod: 'POST' });
const iff = (name: string, leftValue: unknown, type: string, operation: string, rightValue?: unknown) =>
  n(name, 'if', { conditions: { conditions: [{ leftValue, rightValue, operator: { type, operation } }] } });

interface World {
  io: RunIo;
  calls: HttpCall[];
  waits: (number | null)[];
  sleeps: number[];
  steps: NodeStep[];
}

/** A run's world: requests answered by `answer`, a Wait resumed by `resume`, a clock at 2026-01-02. */
function world(
  answer: (call: HttpCall) => HttpAnswer = () => ({ status: 200, body: {} }),
  resume: Resume = 'timeout',
): World {
  const calls: HttpCall[] = [];
  const waits: (number | null)[] = [];
  const sleeps: number[] = [];
  const steps: NodeStep[] = [];
  const io: RunIo = {
    env: { MOCK_API_URL: 'http://api', LIMIT: '30' },
    resumeUrl: 'http://n8n/webhook-waiting/7?signature=ab',
    now: () => Date.parse('2026-01-02T03:04:05.000Z'),
    request: async (call) => {
      calls.push(call);
      return answer(call);
    },
    waitForResume: async (limit) => {
      waits.push(limit);
      return resume;
    },
    sleep: async (seconds) => {
      sleeps.push(seconds);
    },
    onNode: (step) => steps.push(step),
  };
  return { io, calls, waits, sleeps, steps };
}

const run = (wf: N8nExport, w: World = world(), body: unknown = { user: 'ann', n: 92 }): Promise<SimRun> =>
  runWorkflow(wf, { headers: { 'x-h': '1' }, body }, w.io);

/** The output of the run's last step. */
const last = (r: SimRun) => r.steps.at(-1)?.output;

describe('each node kind', () => {
  it('Webhook hands on headers, params, query and body; each node is told to onNode as it ends', async () => {
    const w = world();
    const r = await run(workflow([hook], []), w);
    expect(r).toMatchObject({ status: 'success', error: null });
    expect(last(r)).toEqual({ headers: { 'x-h': '1' }, params: {}, query: {}, body: { user: 'ann', n: 92 } });
    expect(w.steps).toEqual(r.steps);
  });

  it('Code sees $json, $input, $(name), $env, $execution and the run’s clock; its one item goes on', async () => {
    const js = `return [{ json: { a: $json.body.user, b: $input.first().json.body.n, c: $('Webhook').first().json.headers['x-h'],
      d: $env.LIMIT, e: $execution.resumeUrl, f: new Date().toISOString(), g: Date.now() } }];`;
    const r = await run(workflow([hook, code('C', js)], ['Webhook → C']));
    expect(last(r)).toEqual({
      a: 'ann',
      b: 92,
      c: '1',
      d: '30',
      e: 'http://n8n/webhook-waiting/7?signature=ab',
      f: '2026-01-02T03:04:05.000Z',
      g: Date.parse('2026-01-02T03:04:05.000Z'),
    });
  });

  it('a Code node that throws, or returns no list of items, is the run’s error', async () => {
    const thrown = await run(workflow([hook, code('C', "throw new Error('boom')")], ['Webhook → C']));
    expect(thrown).toMatchObject({ status: 'error', error: expect.stringContaining('boom') });
    const notItems = await run(workflow([hook, code('C', 'return { json: {} };')], ['Webhook → C']));
    expect(notItems.error).toBe("C: Code doesn't return items properly");
  });

  it('If hands its input on through output 0 (true) or 1 (false)', async () => {
    const wf = (op: string, right: unknown) =>
      workflow(
        [
          hook,
          iff('I', '={{ $json.body.n }}', 'number', op, right),
          code('T', 'return [{ json: { t: 1 } }];'),
          code('F', 'return [{ json: { f: 1 } }];'),
        ],
        ['Webhook → I', 'I#0 → T', 'I#1 → F'],
      );
    const yes = await run(wf('gte', 80));
    expect(yes.steps.map((s) => [s.name, s.branch])).toEqual([
      ['Webhook', 0],
      ['I', 0],
      ['T', 0],
    ]);
    expect(yes.steps[1]?.output).toEqual(yes.steps[0]?.output);
    const no = await run(wf('lt', 92));
    expect(no.steps.map((s) => s.name)).toEqual(['Webhook', 'I', 'F']);
    const bool = await run(
      workflow([hook, iff('B', '={{ $json.body.n > 1 }}', 'boolean', 'false')], ['Webhook → B']),
    );
    expect(bool.steps[1]?.branch).toBe(1);
    const text = await run(
      workflow([hook, iff('S', '={{ $json.body.user }}', 'string', 'equals', 'ann')], ['Webhook → S']),
    );
    expect(text.steps[1]?.branch).toBe(0);
  });

  it('Stop and Error ends the run with its message, expressions filled in', async () => {
    const stop = n('Stop', 'stopAndError', { errorMessage: "={{ 'no: ' + $json.body.user }}" });
    const r = await run(workflow([hook, stop], ['Webhook → Stop']));
    expect(r).toMatchObject({ status: 'error', error: 'no: ann' });
    expect(r.steps.at(-1)).toMatchObject({ name: 'Stop', output: null, error: 'no: ann' });
  });
});

describe('If’s strict types (typeValidation strict, as the guide’s If nodes)', () => {
  it('a string where a number is wanted is the node’s error, not a false', async () => {
    const r = await run(
      workflow([hook, iff('I', '={{ $json.body.n }}', 'number', 'gte', 80)], ['Webhook → I']),
      world(),
      { n: '92' },
    );
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/^I: Wrong type: '"92"' is a string, not a number/);
  });

  it('a number where a boolean is wanted, a missing value where a string is, are errors too', async () => {
    const bool = await run(
      workflow([hook, iff('B', '={{ $json.body.n }}', 'boolean', 'true')], ['Webhook → B']),
    );
    expect(bool.error).toMatch(/^B: Wrong type: '92' is a number, not a boolean/);
    const text = await run(
      workflow([hook, iff('S', '={{ $json.body.none }}', 'string', 'equals', 'x')], ['Webhook → S']),
    );
    expect(text.error).toMatch(/^S: Wrong type/);
  });
});

describe('HTTP Request', () => {
  const get = (extra: Partial<N8nExportNode> = {}, options: Json = {}) =>
    n(
      'H',
      'httpRequest',
      { method: 'GET', url: '={{ $env.MOCK_API_URL }}/id/{{ $json.body.user }}', options },
      extra,
    );

  it('resolves its URL, sends a JSON body, hands on the answer’s body', async () => {
    const w = world(() => ({ status: 201, body: { ok: true } }));
    const post = n('P', 'httpRequest', {
      method: 'POST',
      url: '={{ $env.MOCK_API_URL }}/cases',
      sendBody: true,
      specifyBody: 'json',
      jsonBody: '={{ JSON.stringify({ user: $json.body.user }) }}',
      options: { timeout: 5000 },
    });
    const r = await run(workflow([hook, post], ['Webhook → P']), w);
    expect(w.calls).toEqual([
      { method: 'POST', url: 'http://api/cases', body: { user: 'ann' }, timeoutMs: 5000 },
    ]);
    expect(r.steps.at(-1)).toMatchObject({ output: { ok: true }, url: '={{ $env.MOCK_API_URL }}/cases' });
  });

  it('with status as data (full response, never error) a 404 goes on as { body, headers, statusCode }', async () => {
    const w = world(() => ({ status: 404, body: { error: 'gone' } }));
    const full = { response: { response: { fullResponse: true, neverError: true } } };
    const r = await run(workflow([hook, get({}, full)], ['Webhook → H']), w);
    expect(r.status).toBe('success');
    expect(last(r)).toEqual({ body: { error: 'gone' }, headers: {}, statusCode: 404 });
    expect(w.calls[0]?.url).toBe('http://api/id/ann');
  });

  it('a 4xx/5xx ends the run, unless the node continues on its error output (output 1)', async () => {
    const w = () => world(() => ({ status: 503, body: { error: 'down' } }));
    const plain = await run(workflow([hook, get()], ['Webhook → H']), w());
    expect(plain).toMatchObject({ status: 'error', error: 'H: GET http://api/id/ann answered 503' });
    const wf = workflow(
      [
        hook,
        get({ onError: 'continueErrorOutput' }),
        code('Ok', 'return [{ json: {} }];'),
        code('Err', 'return [$input.first()];'),
      ],
      ['Webhook → H', 'H#0 → Ok', 'H#1 → Err'],
    );
    const r = await run(wf, w());
    expect(r.steps.map((s) => [s.name, s.branch])).toEqual([
      ['Webhook', 0],
      ['H', 1],
      ['Err', 0],
    ]);
    expect(last(r)).toEqual({
      error: { message: 'GET http://api/id/ann answered 503', status: 503, body: { error: 'down' } },
    });
  });

  it('a body that is no JSON is the node’s error', async () => {
    const bad = n('P', 'httpRequest', {
      method: 'POST',
      url: 'http://api/x',
      sendBody: true,
      specifyBody: 'json',
      jsonBody: '={ nope',
    });
    expect((await run(workflow([hook, bad], ['Webhook → P']))).error).toBe(
      'P: JSON parameter needs to be valid JSON',
    );
  });
});

describe('Wait', () => {
  const onWebhook = n('W', 'wait', {
    resume: 'webhook',
    httpMethod: 'POST',
    limitWaitTime: true,
    limitType: 'afterTimeInterval',
    resumeAmount: '={{ Number($env.LIMIT) }}',
    resumeUnit: 'minutes',
  });

  it('resumed: hands on the resume request as a webhook item; the limit is its amount in seconds', async () => {
    const w = world(undefined, { headers: { h: '2' }, body: { decision: 'approve' } });
    const r = await run(workflow([hook, onWebhook], ['Webhook → W']), w);
    expect(w.waits).toEqual([1800]);
    expect(last(r)).toEqual({ headers: { h: '2' }, params: {}, query: {}, body: { decision: 'approve' } });
  });

  it('its time limit reached: goes on with its input item, as n8n does', async () => {
    const r = await run(
      workflow([hook, code('C', 'return [{ json: { x: 1 } }];'), onWebhook], ['Webhook → C', 'C → W']),
    );
    expect(r.status).toBe('success');
    expect(last(r)).toEqual({ x: 1 });
  });

  it('a time interval sleeps its amount and hands its input on', async () => {
    const w = world();
    const pause = n('P', 'wait', { resume: 'timeInterval', amount: 2, unit: 'seconds' });
    const r = await run(workflow([hook, pause], ['Webhook → P']), w);
    expect(w.sleeps).toEqual([2]);
    expect(last(r)).toEqual(r.steps[0]?.output);
  });
});

describe('$runIndex', () => {
  it('counts a node’s runs from 0: a loop through an If on $runIndex runs three times', async () => {
    const wf = workflow(
      [
        hook,
        code('Count', 'return [{ json: { i: $runIndex } }];'),
        iff('More?', '={{ $runIndex }}', 'number', 'lt', 2),
      ],
      ['Webhook → Count', 'Count → More?', 'More?#0 → Count'],
    );
    const r = await run(wf);
    expect(r.status).toBe('success');
    expect(r.steps.filter((s) => s.name === 'Count').map((s) => s.output)).toEqual([
      { i: 0 },
      { i: 1 },
      { i: 2 },
    ]);
    expect(r.steps.filter((s) => s.name === 'More?').map((s) => s.branch)).toEqual([0, 0, 1]);
  });
});

describe('outside the model: the run ends with an error naming it', () => {
  const cases: [string, N8nExport, RegExp][] = [
    [
      'an unknown node type',
      workflow([hook, n('Set', 'set')], ['Webhook → Set']),
      /^Set: the simulator does not model n8n-nodes-base.set$/,
    ],
    [
      'two connections on one output',
      workflow(
        [hook, code('A', 'return [{ json: {} }];'), code('B', 'return [{ json: {} }];')],
        ['Webhook → A', 'Webhook → B'],
      ),
      /^Webhook: 2 connections on one output/,
    ],
    [
      'a Code node returning two items',
      workflow([hook, code('C', 'return [{ json: {} }, { json: {} }];')], ['Webhook → C']),
      /^C: 2 items, not one$/,
    ],
    [
      'a connection to no node',
      workflow([hook], ['Webhook → Ghost']),
      /^Webhook connects to Ghost, which is no node$/,
    ],
    ['no Webhook', workflow([code('C', 'return [];')], []), /one Webhook node, not 0/],
    [
      'an If with two conditions',
      workflow([hook, n('I', 'if', { conditions: { conditions: [{}, {}] } })], ['Webhook → I']),
      /^I: 2 conditions, not one$/,
    ],
    [
      'an If operator it does not know',
      workflow([hook, iff('I', 1, 'number', 'between', 2)], ['Webhook → I']),
      /^I: the simulator does not model the number operation between$/,
    ],
    [
      'a loop without end',
      workflow([hook, code('A', 'return [$input.first()];')], ['Webhook → A', 'A → A']),
      /more than 500 node executions/,
    ],
  ];

  it.each(cases)('%s', async (_what, wf, expected) => {
    const r = await run(wf);
    expect(r.status).toBe('error');
    expect(r.error).toMatch(expected);
  });
});
