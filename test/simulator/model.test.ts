/**
 * The simulator's model of node settings (app/simulator/model.ts): every setting of a node outside it is
 * refused before any node runs, the run's error naming the node and the setting, where the simulator used
 * to run the node as if the setting were absent (n8n does not). The control: the guide's workflows, every
 * stage's partial and every broken variant, hold no setting outside the model, and run.
 */
import { describe, expect, it } from 'vitest';
import { REFERENCE_VARIANTS } from '../../app/check/variants.js';
import { type HttpCall, runWorkflow } from '../../app/simulator/engine.js';
import { MODEL, settingsOutsideModel } from '../../app/simulator/model.js';
import { STAGE_NAMES } from '../../app/stages/stages.js';
import type { Json, N8nExport, N8nExportNode } from '../../app/workflow/export.js';
import { guideWorkflowsUpTo } from '../../app/workflow/guide/state.js';

/** A node's own fields beyond the export type's: n8n's settings (disabled, retryOnFail, ...). */
type Extra = Partial<N8nExportNode> & Record<string, unknown>;

const node = (name: string, type: string, parameters: Json, extra: Extra = {}): N8nExportNode => ({
  id: name,
  name,
  type: `n8n-nodes-base.${type}`,
  typeVersion: 1,
  position: [0, 0] as [number, number],
  parameters,
  ...extra,
});
const hook = (parameters: Json = {}, extra: Extra = {}) =>
  node('Webhook', 'webhook', { httpMethod: 'POST', path: 'p', ...parameters }, extra);
const ask = (parameters: Json = {}, extra: Extra = {}) =>
  node('Ask', 'httpRequest', { method: 'GET', url: 'http://api/x', ...parameters }, extra);
const code = (parameters: Json = {}, extra: Extra = {}) =>
  node('Code', 'code', { jsCode: 'return [{ json: { ok: true } }];', ...parameters }, extra);
const iff = (parameters: Json = {}, extra: Extra = {}) =>
  node(
    'If',
    'if',
    {
      conditions: {
        options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
        conditions: [{ leftValue: true, operator: { type: 'boolean', operation: 'true' } }],
        combinator: 'and',
      },
      ...parameters,
    },
    extra,
  );
const wait = (parameters: Json = {}, extra: Extra = {}) =>
  node('Wait', 'wait', { resume: 'timeInterval', amount: 1, unit: 'seconds', ...parameters }, extra);
const stop = (parameters: Json = {}, extra: Extra = {}) =>
  node('Stop', 'stopAndError', { errorType: 'errorMessage', errorMessage: 'no', ...parameters }, extra);

/** Webhook → Ask → `last`: a request is made before `last` runs, unless the run is refused first. */
function chain(last: N8nExportNode, first: N8nExportNode = hook()): N8nExport {
  const nodes = first.name === 'Webhook' && last.name === 'Webhook' ? [last, ask()] : [first, ask(), last];
  const connections: N8nExport['connections'] = {
    Webhook: { main: [[{ node: 'Ask', type: 'main', index: 0 }]] },
  };
  if (last.name !== 'Webhook') connections.Ask = { main: [[{ node: last.name, type: 'main', index: 0 }]] };
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

async function runOf(workflow: N8nExport) {
  const calls: HttpCall[] = [];
  const result = await runWorkflow(
    workflow,
    { headers: {}, body: {} },
    {
      env: {},
      resumeUrl: 'http://n8n/webhook-waiting/1',
      now: () => 0,
      request: async (call) => {
        calls.push(call);
        return { status: 200, body: {} };
      },
      waitForResume: async () => 'timeout',
      sleep: async () => {},
    },
  );
  return { result, calls };
}

// [what a trainee would call it, the node holding it, the setting as the error names it]
const REFUSED: [string, N8nExportNode, string][] = [
  [
    'a disabled node',
    code({}, { disabled: true }),
    'Code: the simulator does not model the setting disabled = true',
  ],
  [
    'retry on fail',
    ask({}, { retryOnFail: true, maxTries: 3 }),
    'Ask: the simulator does not model the setting retryOnFail = true',
  ],
  [
    'continue on fail (the old setting)',
    code({}, { continueOnFail: true }),
    'Code: the simulator does not model the setting continueOnFail = true',
  ],
  [
    'on error: continue (regular output)',
    ask({}, { onError: 'continueRegularOutput' }),
    'Ask: the simulator does not model the setting onError = "continueRegularOutput"',
  ],
  [
    'on error: error output on a Code node',
    code({}, { onError: 'continueErrorOutput' }),
    'Code: the simulator does not model the setting onError = "continueErrorOutput"',
  ],
  [
    'always output data',
    code({}, { alwaysOutputData: true }),
    'Code: the simulator does not model the setting alwaysOutputData = true',
  ],
  [
    'execute once',
    code({}, { executeOnce: true }),
    'Code: the simulator does not model the setting executeOnce = true',
  ],
  [
    'credentials',
    ask({}, { credentials: { httpBasicAuth: { id: '1', name: 'x' } } }),
    'Ask: the simulator does not model the setting credentials = ',
  ],
  [
    'an HTTP Request query',
    ask({ sendQuery: true, queryParameters: { parameters: [{ name: 'a', value: 'b' }] } }),
    'Ask: the simulator does not model the setting parameters.sendQuery = true',
  ],
  [
    'HTTP Request headers',
    ask({ sendHeaders: true, headerParameters: { parameters: [] } }),
    'Ask: the simulator does not model the setting parameters.sendHeaders = true',
  ],
  [
    'HTTP Request authentication',
    ask({ authentication: 'genericCredentialType', genericAuthType: 'httpBasicAuth' }),
    'Ask: the simulator does not model the setting parameters.authentication = "genericCredentialType"',
  ],
  [
    'HTTP Request response format',
    ask({ options: { response: { response: { responseFormat: 'text' } } } }),
    'Ask: the simulator does not model the setting parameters.options.response.response.responseFormat = "text"',
  ],
  [
    'HTTP Request redirects',
    ask({ options: { redirect: { redirect: { followRedirects: false } } } }),
    'Ask: the simulator does not model the setting parameters.options.redirect = ',
  ],
  [
    'an HTTP Request form body',
    ask({ sendBody: true, contentType: 'form-urlencoded' }),
    'Ask: the simulator does not model the setting parameters.contentType = "form-urlencoded"',
  ],
  [
    'a Webhook response code',
    hook({ options: { responseCode: 400 } }),
    'Webhook: the simulator does not model the setting parameters.options.responseCode = 400',
  ],
  [
    'a Webhook raw body',
    hook({ options: { rawBody: true } }),
    'Webhook: the simulator does not model the setting parameters.options.rawBody = true',
  ],
  [
    'a Webhook allowed-IP list',
    hook({ options: { ipWhitelist: '192.0.2.1' } }),
    'Webhook: the simulator does not model the setting parameters.options.ipWhitelist = "192.0.2.1"',
  ],
  [
    'a Webhook that answers with its last node',
    hook({ responseMode: 'lastNode' }),
    'Webhook: the simulator does not model the setting parameters.responseMode = "lastNode"',
  ],
  [
    'a Webhook with authentication',
    hook({ authentication: 'headerAuth' }),
    'Webhook: the simulator does not model the setting parameters.authentication = "headerAuth"',
  ],
  [
    'a Webhook on GET',
    hook({ httpMethod: 'GET' }),
    'Webhook: the simulator does not model the setting parameters.httpMethod = "GET"',
  ],
  [
    'a Webhook without its method (n8n: GET)',
    node('Webhook', 'webhook', { path: 'p' }),
    'Webhook: the simulator does not model the setting parameters.httpMethod absent',
  ],
  [
    'a Code node run once for each item',
    code({ mode: 'runOnceForEachItem' }),
    'Code: the simulator does not model the setting parameters.mode = "runOnceForEachItem"',
  ],
  [
    'a Code node in Python',
    code({ language: 'python' }),
    'Code: the simulator does not model the setting parameters.language = "python"',
  ],
  [
    'an If with loose types',
    iff({ looseTypeValidation: true }),
    'If: the simulator does not model the setting parameters.looseTypeValidation = true',
  ],
  [
    'an If ignoring case',
    iff({ conditions: { options: { caseSensitive: false }, conditions: [] } }),
    'If: the simulator does not model the setting parameters.conditions.options.caseSensitive = false',
  ],
  [
    'a Wait’s options',
    wait({ options: { webhookSuffix: 'x' } }),
    'Wait: the simulator does not model the setting parameters.options.webhookSuffix = "x"',
  ],
  [
    'a Wait with authentication',
    wait({ resume: 'webhook', httpMethod: 'POST', incomingAuthentication: 'basicAuth' }),
    'Wait: the simulator does not model the setting parameters.incomingAuthentication = "basicAuth"',
  ],
  [
    'a Wait until a date',
    wait({ resume: 'specificTime' }),
    'Wait: the simulator does not model the setting parameters.resume = "specificTime"',
  ],
  [
    'a Stop and Error with an object',
    stop({ errorType: 'errorObject' }),
    'Stop: the simulator does not model the setting parameters.errorType = "errorObject"',
  ],
  [
    'a parameter it has never heard of',
    code({ somethingNew: 1 }),
    'Code: the simulator does not model the setting parameters.somethingNew = 1',
  ],
];

describe('a node setting outside the model is refused before any node runs, named', () => {
  it.each(REFUSED)('%s', async (_what, refused, named) => {
    const { result, calls } = await runOf(chain(refused));
    expect(result.status).toBe('error');
    expect(result.error).toContain(named);
    // Refused before the run: no node ran, no request was made (Ask comes before the refused node).
    expect(result.steps).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('every node type the engine runs has a refused setting tested here', () => {
    const tested = new Set(REFUSED.map(([, n]) => n.type));
    expect([...tested].sort()).toEqual(Object.keys(MODEL).sort());
  });

  it('two refused settings are both named, one line each', () => {
    const refused = settingsOutsideModel(chain(code({ mode: 'runOnceForEachItem' }, { disabled: true })));
    expect(refused).toEqual([
      'Code: the simulator does not model the setting disabled = true',
      'Code: the simulator does not model the setting parameters.mode = "runOnceForEachItem"',
    ]);
  });
});

describe('the control: what the model holds runs', () => {
  it('each node with every modelled setting given its modelled value runs, and the request is made', async () => {
    const modelled = [
      code({ mode: 'runOnceForAllItems', language: 'javaScript' }, { disabled: false, notes: 'n' }),
      ask(
        { authentication: 'none', sendQuery: false, sendHeaders: false, options: { timeout: 1000 } },
        { onError: 'continueErrorOutput', retryOnFail: false },
      ),
      iff({ looseTypeValidation: false, options: {} }),
      wait({ options: {} }),
    ];
    for (const one of modelled) {
      const last = { ...one, id: 'Last', name: 'Last' };
      const { result, calls } = await runOf(chain(last, hook({ responseMode: 'onReceived', options: {} })));
      expect(result.error).toBeNull();
      expect(result.steps.map((s) => s.name)).toEqual(['Webhook', 'Ask', last.name]);
      expect(calls).toHaveLength(last.type === 'n8n-nodes-base.httpRequest' ? 2 : 1);
    }
    const { result } = await runOf(chain(stop()));
    expect(result.error).toBe('no');
  });

  it('the guide’s workflows, every stage’s partial and every variant hold no setting outside it', () => {
    const workflows = [
      ...STAGE_NAMES.flatMap((stage) => guideWorkflowsUpTo(stage)),
      ...Object.values(REFERENCE_VARIANTS).flatMap((v) =>
        guideWorkflowsUpTo('rollback', undefined, v.reference),
      ),
    ];
    expect(workflows.length).toBeGreaterThan(STAGE_NAMES.length);
    expect(workflows.flatMap(settingsOutsideModel)).toEqual([]);
  });
});
