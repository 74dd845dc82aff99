/**
 * Static checks of the n8n export JSON in docker/workflows/ against docs/workflow-protocol.md and the
 * pinned n8n's node catalogue. Each check returns a list of problems (empty = pass), so a test can show
 * both that the real workflows pass and that a deliberately broken copy is caught.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APPROVAL_THRESHOLD, BLOCK_EXPIRES_MINUTES } from '../../app/workflow/constants.js';

export interface N8nNode {
  id: string;
  name: string;
  type: string;
  typeVersion: number;
  position?: number[];
  webhookId?: string;
  /** `continueErrorOutput`: a failure goes on output 1 (the error output) instead of ending the run. */
  onError?: string;
  parameters: Record<string, unknown>;
}

export interface N8nConnection {
  node: string;
  type: string;
  index: number;
}

export interface N8nWorkflow {
  id: string;
  name: string;
  nodes: N8nNode[];
  connections: Record<string, { main: N8nConnection[][] }>;
  settings?: Record<string, unknown>;
}

export interface NodeTypeFixture {
  n8n: string;
  nodes: Record<string, number[]>;
}

export const ROOT = join(import.meta.dirname, '..', '..');
export const WORKFLOW_DIR = join(ROOT, 'docker', 'workflows');

export function loadJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** The single base-URL setting: every HTTP Request URL starts with exactly this expression. */
export const BASE_URL_EXPRESSION = "={{ $('Settings').first().json.api }}";

/**
 * The mock API routes a workflow may call (api-contract.md). /control/*, /state and /reset are the
 * trainer's and the runner's, never the workflow's.
 */
export const WORKFLOW_ROUTES = [
  'GET /health',
  'GET /identity/{param}',
  'GET /cases/{param}',
  'POST /cases',
  'POST /notify',
  'POST /blocklist',
  'GET /blocklist/{param}',
  'DELETE /blocklist/{param}',
] as const;

const HTTP = 'n8n-nodes-base.httpRequest';
const IF = 'n8n-nodes-base.if';
const WAIT = 'n8n-nodes-base.wait';
const STOP = 'n8n-nodes-base.stopAndError';
const WEBHOOK = 'n8n-nodes-base.webhook';

// ---------------------------------------------------------------------------------------------------
// graph helpers
// ---------------------------------------------------------------------------------------------------

export function node(wf: N8nWorkflow, name: string): N8nNode | undefined {
  return wf.nodes.find((n) => n.name === name);
}

/** Names of the nodes connected to `name`'s output `output` (all outputs when undefined). */
export function successors(wf: N8nWorkflow, name: string, output?: number): string[] {
  const main = wf.connections[name]?.main ?? [];
  const outs = output === undefined ? main : [main[output] ?? []];
  return outs.flat().map((c) => c.node);
}

/**
 * Is there a path from `from` (leaving through `output` when given) to `to` that enters no node matching
 * `avoid` on the way? `from` and `to` themselves are never avoided.
 */
export function pathExists(
  wf: N8nWorkflow,
  from: string,
  to: string,
  opts: { output?: number; avoid?: (n: N8nNode) => boolean } = {},
): boolean {
  const seen = new Set<string>();
  const queue = successors(wf, from, opts.output);
  while (queue.length > 0) {
    const name = queue.shift() as string;
    if (name === to) return true;
    if (seen.has(name)) continue;
    seen.add(name);
    const n = node(wf, name);
    if (!n || (opts.avoid && name !== to && opts.avoid(n))) continue;
    queue.push(...successors(wf, name));
  }
  return false;
}

/** Every node reachable from `from` (leaving through `output` when given). */
export function reachable(wf: N8nWorkflow, from: string, output?: number): N8nNode[] {
  const seen = new Set<string>();
  const queue = successors(wf, from, output);
  while (queue.length > 0) {
    const name = queue.shift() as string;
    if (seen.has(name)) continue;
    seen.add(name);
    queue.push(...successors(wf, name));
  }
  return wf.nodes.filter((n) => seen.has(n.name));
}

// ---------------------------------------------------------------------------------------------------
// HTTP Request nodes
// ---------------------------------------------------------------------------------------------------

export interface HttpCall {
  node: N8nNode;
  method: string;
  /** The URL after the base-URL setting, `{{ ... }}` replaced by `{param}`, e.g. `/identity/{param}`. */
  route: string;
  /** The JSON body expression (POST), '' when none. */
  body: string;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function httpCall(n: N8nNode): HttpCall {
  const url = str(n.parameters.url);
  const rest = url.startsWith(BASE_URL_EXPRESSION) ? url.slice(BASE_URL_EXPRESSION.length) : url;
  return {
    node: n,
    method: str(n.parameters.method) || 'GET',
    route: `${str(n.parameters.method) || 'GET'} ${rest.replace(/\{\{.*?\}\}/g, '{param}')}`,
    body: str(n.parameters.jsonBody),
  };
}

export function httpCalls(wf: N8nWorkflow): HttpCall[] {
  return wf.nodes.filter((n) => n.type === HTTP).map(httpCall);
}

const isRoute = (route: string) => (n: N8nNode) => n.type === HTTP && httpCall(n).route === route;
const isNotify = (channel: string) => (n: N8nNode) =>
  isRoute('POST /notify')(n) && httpCall(n).body.includes(`channel: '${channel}'`);
const isHttp = (n: N8nNode) => n.type === HTTP;

function conditionText(n: N8nNode): string {
  return JSON.stringify(n.parameters.conditions ?? '');
}

// ---------------------------------------------------------------------------------------------------
// checks
// ---------------------------------------------------------------------------------------------------

/** Every node type and typeVersion exists in the pinned n8n (the committed fixture). */
export function checkNodeTypes(wf: N8nWorkflow, fixture: NodeTypeFixture): string[] {
  const problems: string[] = [];
  for (const n of wf.nodes) {
    const versions = fixture.nodes[n.type];
    if (!versions) problems.push(`${n.name}: node type ${n.type} does not exist in n8n ${fixture.n8n}`);
    else if (!versions.includes(n.typeVersion))
      problems.push(
        `${n.name}: ${n.type} has no typeVersion ${n.typeVersion} in n8n ${fixture.n8n} (${versions.join(', ')})`,
      );
  }
  return problems;
}

/** Names and ids are unique, connections name existing nodes, webhooks and waits have webhook ids. */
export function checkWellFormed(wf: N8nWorkflow): string[] {
  const problems: string[] = [];
  if (!/^[A-Za-z0-9]{16}$/.test(wf.id)) problems.push(`workflow id ${wf.id} is not a fixed 16-character id`);
  const names = new Set<string>();
  const ids = new Set<string>();
  for (const n of wf.nodes) {
    if (names.has(n.name)) problems.push(`duplicate node name ${n.name}`);
    if (ids.has(n.id)) problems.push(`duplicate node id ${n.id}`);
    names.add(n.name);
    ids.add(n.id);
    if ((n.type === WEBHOOK || n.type === WAIT) && !n.webhookId) problems.push(`${n.name}: no webhookId`);
  }
  for (const [from, { main }] of Object.entries(wf.connections)) {
    if (!names.has(from)) problems.push(`connection from unknown node ${from}`);
    for (const c of main.flat())
      if (!names.has(c.node)) problems.push(`${from} connects to unknown ${c.node}`);
  }
  if (wf.settings?.executionOrder !== 'v1') problems.push('settings.executionOrder must be v1');
  return problems;
}

/**
 * Every HTTP Request node calls a contract route (method + path pattern) through the single base-URL
 * setting, encodes its path parameters, sends POST bodies as JSON and has a timeout. The base URL is read
 * from $env.MOCK_API_URL by one Set node, right after the webhook, and nowhere else.
 */
export function checkHttpRoutes(wf: N8nWorkflow, routes: readonly string[] = WORKFLOW_ROUTES): string[] {
  const problems: string[] = [];
  for (const call of httpCalls(wf)) {
    const { node: n } = call;
    const url = str(n.parameters.url);
    if (!url.startsWith(BASE_URL_EXPRESSION))
      problems.push(`${n.name}: URL ${url} does not start with the base-URL setting ${BASE_URL_EXPRESSION}`);
    if (!routes.includes(call.route))
      problems.push(`${n.name}: ${call.route} is not a route of the contract`);
    for (const [, expr] of url.slice(BASE_URL_EXPRESSION.length).matchAll(/\{\{(.*?)\}\}/g)) {
      if (!/^\s*encodeURIComponent\(/.test(expr ?? ''))
        problems.push(`${n.name}: path parameter {{${expr}}} is not encodeURIComponent(...)`);
    }
    if (call.method === 'POST') {
      if (
        n.parameters.sendBody !== true ||
        n.parameters.specifyBody !== 'json' ||
        !call.body.startsWith('={{')
      )
        problems.push(
          `${n.name}: a POST must send a JSON body (sendBody, specifyBody json, jsonBody expression)`,
        );
    } else if (n.parameters.sendBody === true)
      problems.push(`${n.name}: a ${call.method} must not send a body`);
    const options = (n.parameters.options ?? {}) as Record<string, unknown>;
    if (typeof options.timeout !== 'number' || options.timeout <= 0 || options.timeout > 30_000)
      problems.push(`${n.name}: no request timeout (options.timeout, at most 30 s)`);
  }
  const text = (n: N8nNode) => JSON.stringify(n.parameters);
  const readers = wf.nodes.filter((n) => text(n).includes('$env.MOCK_API_URL'));
  if (readers.length !== 1 || readers[0]?.type !== 'n8n-nodes-base.set' || readers[0]?.name !== 'Settings')
    problems.push(
      `the base URL must be read from $env.MOCK_API_URL by one Set node named Settings (found: ${readers.map((n) => n.name).join(', ') || 'none'})`,
    );
  const webhook = wf.nodes.find((n) => n.type === WEBHOOK);
  if (!webhook || !successors(wf, webhook.name).includes('Settings'))
    problems.push('Settings must come right after the webhook (read once, at the start of the run)');
  for (const n of wf.nodes) {
    if (/https?:\/\//.test(text(n)) && n.name !== 'Settings')
      problems.push(`${n.name}: contains a literal URL; only Settings may name the default address`);
  }
  return problems;
}

function checkWebhook(wf: N8nWorkflow, path: string): string[] {
  const hooks = wf.nodes.filter((n) => n.type === WEBHOOK);
  const p = hooks[0]?.parameters ?? {};
  if (hooks.length !== 1) return [`expected one webhook, found ${hooks.length}`];
  const problems: string[] = [];
  if (p.httpMethod !== 'POST') problems.push('webhook: httpMethod must be POST');
  if (p.path !== path) problems.push(`webhook: path must be ${path}`);
  if (p.responseMode !== 'onReceived') problems.push('webhook: responseMode must be onReceived');
  return problems;
}

/** The branches of "Suspicious Login Response" (docs/workflow-protocol.md, steps 1-7). */
export function checkResponseBranches(wf: N8nWorkflow): string[] {
  const problems = checkWebhook(wf, 'suspicious-login');
  const webhook = wf.nodes.find((n) => n.type === WEBHOOK)?.name ?? 'Webhook';
  const one = (what: string, pred: (n: N8nNode) => boolean): N8nNode | undefined => {
    const found = wf.nodes.filter(pred);
    if (found.length !== 1) problems.push(`expected one ${what}, found ${found.length}`);
    return found[0];
  };
  const validationNotify = one(
    'validation notification (POST /notify channel validation)',
    isNotify('validation'),
  );
  const approvalNotify = one('approval request (POST /notify channel approval)', isNotify('approval'));
  const ownerNotify = one('owner notification (POST /notify channel owner)', isNotify('owner'));
  const record = one('Record (POST /cases)', isRoute('POST /cases'));
  const block = one('Block (POST /blocklist)', isRoute('POST /blocklist'));
  const verify = one(
    'block verification (GET /blocklist/{ip} right after Block)',
    (n) =>
      isRoute('GET /blocklist/{param}')(n) &&
      !!block &&
      pathExists(wf, block.name, n.name, { avoid: isHttp }),
  );
  const enrich = one('Enrich (GET /identity/{user})', isRoute('GET /identity/{param}'));
  const lookup = one('Case lookup (GET /cases/{event_id})', isRoute('GET /cases/{param}'));
  const health = one('health poll (GET /health)', isRoute('GET /health'));
  const approvalWait = one(
    'approval Wait (resume on webhook)',
    (n) => n.type === WAIT && n.parameters.resume === 'webhook',
  );
  const decide = one(
    `Decide IF (confidence >= ${APPROVAL_THRESHOLD})`,
    (n) => n.type === IF && conditionText(n).includes(`confidence >= ${APPROVAL_THRESHOLD}`),
  );
  if (problems.length > 0) return problems;
  // All found: the narrowing below is for the type checker.
  const [vN, aN, oN, rec, blk, ver, enr, lku, hlth, wait, dec] = [
    validationNotify,
    approvalNotify,
    ownerNotify,
    record,
    block,
    verify,
    enrich,
    lookup,
    health,
    approvalWait,
    decide,
  ].map((n) => (n as N8nNode).name) as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];

  const no =
    (...preds: ((n: N8nNode) => boolean)[]) =>
    (n: N8nNode) =>
      preds.some((p) => p(n));

  // 1. Validation: reached from the webhook before any request; one notification, then Stop and Error.
  if (!pathExists(wf, webhook, vN, { avoid: isHttp }))
    problems.push(
      'validation: the validation notification is not reachable from the webhook before any request',
    );
  const afterValidation = successors(wf, vN);
  if (afterValidation.length !== 1 || node(wf, afterValidation[0] as string)?.type !== STOP)
    problems.push('validation: the validation notification must lead straight to Stop and Error');
  if (reachable(wf, vN).some(isHttp))
    problems.push('validation: a request follows the validation notification');
  if (
    pathExists(wf, webhook, enr, {
      avoid: (n) => n.type === IF && successors(wf, n.name, 1).includes(vN),
    }) === true
  ) {
    // every way to Enrich must pass a gate whose false output is the validation notification
    problems.push('validation: Enrich is reachable without passing a validation gate');
  }
  // 2-3. Enrich before Case lookup; both before Decide.
  if (!pathExists(wf, enr, lku)) problems.push('Enrich must lead to Case lookup');
  if (!pathExists(wf, lku, dec)) problems.push('Case lookup must lead to Decide');
  if (!JSON.stringify(node(wf, lku)?.parameters).includes('"neverError":true'))
    problems.push('Case lookup: needs neverError + fullResponse (a 404 selects create)');

  // 4. Below threshold: Decide's false output records without approval or any blocklist request.
  const isBlocklist = (n: N8nNode) => n.type === HTTP && httpCall(n).route.includes(' /blocklist');
  if (
    !pathExists(wf, dec, rec, {
      output: 1,
      avoid: no(isBlocklist, isNotify('approval'), (n) => n.type === WAIT),
    })
  )
    problems.push('below threshold: Decide (false) does not reach Record without approval or block');
  if (reachable(wf, dec, 1).some((n) => n.name === aN || n.name === wait || isBlocklist(n)))
    problems.push(
      'below threshold: Decide (false) can reach the approval request, the wait or a blocklist request',
    );
  // 4b. Duplicate delivery: after the case lookup, a way to Record that asks nobody and blocks nothing,
  // through a gate on the looked-up case (final_action blocked).
  const dupGate = wf.nodes.find((n) => n.type === IF && conditionText(n).includes('duplicate === true'));
  if (!dupGate) problems.push('duplicate delivery: no gate on the looked-up case');
  else {
    if (!pathExists(wf, lku, dupGate.name))
      problems.push('duplicate delivery: the gate is not after the case lookup');
    if (!pathExists(wf, dupGate.name, rec, { output: 0, avoid: no(isHttp, (n) => n.type === WAIT) }))
      problems.push('duplicate delivery: the gate (true) does not lead to Record without a request');
    if (reachable(wf, dupGate.name, 0).some((n) => n.name === blk || n.name === aN))
      problems.push('duplicate delivery: the duplicate branch can reach the approval request or Block');
  }
  if (!pathExists(wf, dec, aN, { output: 0 })) problems.push('Decide (true) must request approval');

  // 5. Approval: the request carries the full resume URL and is followed by a time-limited Wait.
  if (!httpCall(node(wf, aN) as N8nNode).body.includes('resume_url: $execution.resumeUrl'))
    problems.push('approval: the request does not carry resume_url: $execution.resumeUrl');
  if (!successors(wf, aN).includes(wait))
    problems.push('approval: the request must lead straight to the Wait');
  const wp = (node(wf, wait) as N8nNode).parameters;
  if (wp.httpMethod !== 'POST' || wp.limitWaitTime !== true || wp.limitType !== 'afterTimeInterval')
    problems.push('approval wait: needs httpMethod POST and a time limit (limitWaitTime, afterTimeInterval)');
  if (!str(wp.resumeAmount).includes('approval_timeout_seconds') || wp.resumeUnit !== 'seconds')
    problems.push('approval wait: the limit must be the APPROVAL_TIMEOUT_SECONDS setting, in seconds');
  if (!JSON.stringify(node(wf, 'Settings')?.parameters).includes('$env.APPROVAL_TIMEOUT_SECONDS'))
    problems.push('Settings: does not read $env.APPROVAL_TIMEOUT_SECONDS');

  // 5b. Reject / timeout: the gate after the wait; its false output records without a block.
  const gate = reachable(wf, wait).find(
    (n) =>
      n.type === IF &&
      pathExists(wf, n.name, blk, { output: 0 }) &&
      pathExists(wf, n.name, rec, { output: 1 }),
  );
  if (!gate)
    problems.push('approval: no gate after the wait whose true output blocks and false output records');
  else if (reachable(wf, gate.name, 1).some((n) => n.name === blk))
    problems.push('reject/timeout: the no-action branch can reach Block');
  if (!pathExists(wf, wait, blk)) problems.push('approval: Block is not after the wait');
  if (pathExists(wf, webhook, blk, { avoid: (n) => n.name === wait }))
    problems.push('approval: Block is reachable without passing the approval wait');

  // 6. Block: expires_minutes 10, then verification (no other request between), then Record.
  if (!httpCall(node(wf, blk) as N8nNode).body.includes(`expires_minutes: ${BLOCK_EXPIRES_MINUTES}`))
    problems.push(`block: the request must send expires_minutes: ${BLOCK_EXPIRES_MINUTES}`);
  if (!pathExists(wf, blk, ver, { avoid: isHttp }))
    problems.push('block: not followed by GET /blocklist/<ip>');
  if (!pathExists(wf, ver, rec, { avoid: isHttp }))
    problems.push('block: the verification does not lead to Record');
  if (pathExists(wf, blk, rec, { avoid: (n) => n.name === ver }))
    problems.push('block: Record is reachable from Block without the verification');

  // 7. Record, connector failure: owner notified, bounded polling of GET /health, then only Record again.
  const fromRecord = reachable(wf, rec);
  for (const bad of [blk, enr, lku, aN, wait, vN])
    if (fromRecord.some((n) => n.name === bad))
      problems.push(`connector failure: ${bad} is reachable after Record`);
  if (!pathExists(wf, rec, oN, { avoid: isHttp }))
    problems.push('connector failure: Record does not lead to the owner notification');
  if (!pathExists(wf, oN, hlth, { avoid: isHttp }))
    problems.push('connector failure: the owner notification is not followed by GET /health');
  if (!pathExists(wf, hlth, rec, { avoid: isHttp }))
    problems.push('connector failure: GET /health does not lead back to Record');
  if (!pathExists(wf, hlth, hlth, { avoid: (n) => n.type === HTTP && n.name !== hlth }))
    problems.push('connector failure: GET /health is not polled in a loop');
  const loop = reachable(wf, hlth).filter((n) => pathExists(wf, n.name, hlth));
  const bound = loop.find((n) => n.type === IF && /\$runIndex\s*<\s*\d+/.test(conditionText(n)));
  if (!bound)
    problems.push('connector failure: the health poll has no bound ($runIndex < N gate in the loop)');
  else if (!successors(wf, bound.name, 1).some((s) => node(wf, s)?.type === STOP))
    problems.push('connector failure: the poll bound does not end the run with Stop and Error');
  if (!loop.some((n) => n.type === WAIT && n.parameters.resume === 'timeInterval'))
    problems.push('connector failure: the health poll has no pause (Wait, time interval)');
  const retry = successors(wf, rec).flatMap((s) =>
    node(wf, s)?.type === IF ? [node(wf, s) as N8nNode] : [],
  );
  if (!retry.some((n) => pathExists(wf, n.name, oN, { output: 1 })))
    problems.push(
      'connector failure: the owner path must leave a status gate after Record through its failure output',
    );
  return problems;
}

/** The branches of "Suspicious Login Rollback". */
export function checkRollbackBranches(wf: N8nWorkflow): string[] {
  const problems = checkWebhook(wf, 'suspicious-login-rollback');
  const find = (route: string) => wf.nodes.filter(isRoute(route));
  const [lookup, del, verify, record] = [
    find('GET /cases/{param}'),
    find('DELETE /blocklist/{param}'),
    find('GET /blocklist/{param}'),
    find('POST /cases'),
  ];
  if (lookup.length !== 1 || del.length !== 1 || verify.length !== 1 || record.length !== 1) {
    problems.push('rollback: needs one each of GET /cases, DELETE /blocklist, GET /blocklist, POST /cases');
    return problems;
  }
  const [l, d, v, r] = [lookup, del, verify, record].map((x) => (x[0] as N8nNode).name) as [
    string,
    string,
    string,
    string,
  ];
  if (!pathExists(wf, l, d, { avoid: isHttp })) problems.push('rollback: case lookup must lead to DELETE');
  if (!pathExists(wf, d, v, { avoid: isHttp }))
    problems.push('rollback: DELETE must be followed by the verification GET');
  if (!pathExists(wf, v, r, { avoid: isHttp }))
    problems.push('rollback: the verification must lead to the record');
  if (pathExists(wf, d, r, { avoid: (n) => n.name === v }))
    problems.push('rollback: recorded without verification');
  const gate = wf.nodes.find(
    (n) => n.type === IF && pathExists(wf, v, n.name) && conditionText(n).includes('blocked === false'),
  );
  if (!gate || !pathExists(wf, gate.name, r, { output: 0 }))
    problems.push('rollback: no gate checking blocked === false before the record');
  const recordBuilder = JSON.stringify(
    wf.nodes.filter((n) => pathExists(wf, v, n.name)).map((n) => n.parameters),
  );
  for (const field of [
    'recovery_seconds',
    'verified_absent',
    "status: 'completed'",
    "final_action: 'rolled_back'",
  ])
    if (!recordBuilder.includes(field)) problems.push(`rollback: the record does not set ${field}`);
  return problems;
}

/** Every string parameter of a node, with its path, e.g. `jsonBody` or `conditions.conditions.0.leftValue`. */
function stringParams(value: unknown, path = ''): [string, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => stringParams(v, path === '' ? k : `${path}.${k}`));
}

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (body: string) => unknown;

/**
 * The JavaScript compiles: every Code node's jsCode (n8n runs it as the body of an async function) and
 * every `{{ ... }}` of an expression parameter (`=...`). Nothing is executed.
 */
export function checkJavaScript(wf: N8nWorkflow): string[] {
  const problems: string[] = [];
  for (const n of wf.nodes) {
    if (n.type === 'n8n-nodes-base.code') {
      try {
        new AsyncFunction(str(n.parameters.jsCode));
      } catch (error) {
        problems.push(`${n.name}: jsCode does not compile: ${(error as Error).message}`);
      }
    }
    for (const [path, text] of stringParams(n.parameters)) {
      if (!text.startsWith('=') || path === 'jsCode') continue;
      for (const [, expr] of text.matchAll(/\{\{([\s\S]*?)\}\}/g)) {
        try {
          new Function(`return (${expr});`);
        } catch (error) {
          problems.push(`${n.name}: expression in ${path} does not compile: ${(error as Error).message}`);
        }
      }
    }
  }
  return problems;
}
