#!/usr/bin/env node
/**
 * Writes the two n8n workflows of docs/workflow-protocol.md as n8n export JSON:
 *   docker/n8n/workflows/suspicious-login-response.json
 *   docker/n8n/workflows/suspicious-login-rollback.json
 * The JSON files are the artefact (import them with the n8n CLI or the editor); this script is how they
 * are kept readable and reviewable. After editing it run `node docker/n8n/generate-workflows.mjs`;
 * test/workflow/workflow-json.test.ts checks the committed JSON, and that this script reproduces it.
 * Plain Node, no dependencies.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// An optional argument writes elsewhere (the drift test compares that output with the committed files).
const OUT = process.argv[2] || join(dirname(fileURLToPath(import.meta.url)), 'workflows');

export const RESPONSE_ID = 'SuspLoginResp001';
export const ROLLBACK_ID = 'SuspLoginRollbk1';

/** Deterministic UUID-shaped ids, so regenerating gives the same file. */
function uid(workflow, n) {
  const hex = (workflow * 1000 + n).toString(16).padStart(12, '0');
  return `5e1f0000-0000-4000-8000-${hex}`;
}

/** The one base-URL setting: every HTTP Request node starts its URL with this expression. */
const API = "{{ $('Settings').first().json.api }}";
const ALERT = "$('Validate').first().json.alert";

/** HTTP Request node options: bounded, and (with `full`) status codes exposed instead of thrown. */
function httpOptions(full) {
  const options = { timeout: 10000 };
  if (full) options.response = { response: { fullResponse: true, neverError: true } };
  return options;
}

function http(name, method, urlPath, { body, full = true } = {}) {
  const parameters = { method, url: `=${API}${urlPath}` };
  if (body !== undefined) {
    parameters.sendBody = true;
    parameters.specifyBody = 'json';
    parameters.jsonBody = `={{ JSON.stringify(${body}) }}`;
  }
  parameters.options = httpOptions(full);
  return { name, type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, parameters };
}

function code(name, jsCode) {
  return {
    name,
    type: 'n8n-nodes-base.code',
    typeVersion: 2,
    parameters: { mode: 'runOnceForAllItems', jsCode: jsCode.trim() },
  };
}

function iff(name, expression) {
  return {
    name,
    type: 'n8n-nodes-base.if',
    typeVersion: 2.2,
    parameters: {
      conditions: {
        options: { caseSensitive: true, leftValue: '', typeValidation: 'loose', version: 2 },
        conditions: [
          {
            id: '',
            leftValue: `={{ ${expression} }}`,
            rightValue: true,
            operator: { type: 'boolean', operation: 'true', singleValue: true },
          },
        ],
        combinator: 'and',
      },
      looseTypeValidation: true,
      options: {},
    },
  };
}

function stop(name, errorMessage) {
  return {
    name,
    type: 'n8n-nodes-base.stopAndError',
    typeVersion: 1,
    parameters: { errorType: 'errorMessage', errorMessage },
  };
}

function webhook(path) {
  return {
    name: 'Webhook',
    type: 'n8n-nodes-base.webhook',
    typeVersion: 2.1,
    parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
  };
}

function settings(extra = []) {
  return {
    name: 'Settings',
    type: 'n8n-nodes-base.set',
    typeVersion: 3.4,
    parameters: {
      mode: 'manual',
      assignments: {
        assignments: [
          {
            name: 'api',
            value: "={{ String($env.MOCK_API_URL || 'http://127.0.0.1:8081').replace(/\\/+$/, '') }}",
            type: 'string',
          },
          ...extra,
        ],
      },
      options: {},
    },
  };
}

/**
 * Builds the export JSON: node ids, webhook ids, assignment/condition ids and positions are filled in
 * deterministically; `edges` are [from, to, outputIndex?].
 */
function workflow({ id, name, number, nodes, layout, edges }) {
  let n = 0;
  const full = nodes.map((node) => {
    n += 1;
    const out = { id: uid(number, n), name: node.name, type: node.type, typeVersion: node.typeVersion };
    const pos = layout[node.name];
    if (!pos) throw new Error(`no position for ${node.name}`);
    out.position = [pos[0] * 220, pos[1] * 160];
    if (node.type === 'n8n-nodes-base.webhook' || node.type === 'n8n-nodes-base.wait') {
      out.webhookId = uid(number, 100 + n);
    }
    const parameters = structuredClone(node.parameters);
    for (const a of parameters.assignments?.assignments ?? []) a.id = uid(number, 200 + n);
    for (const c of parameters.conditions?.conditions ?? []) c.id = uid(number, 300 + n);
    out.parameters = parameters;
    return out;
  });
  const names = new Set(full.map((x) => x.name));
  const connections = {};
  for (const [from, to, output = 0] of edges) {
    if (!names.has(from) || !names.has(to)) throw new Error(`edge ${from} -> ${to}: unknown node`);
    connections[from] ??= { main: [] };
    const main = connections[from].main;
    while (main.length <= output) main.push([]);
    main[output].push({ node: to, type: 'main', index: 0 });
  }
  return {
    id,
    name,
    active: false,
    settings: {
      executionOrder: 'v1',
      saveDataErrorExecution: 'all',
      saveDataSuccessExecution: 'all',
      saveExecutionProgress: true,
      saveManualExecutions: true,
    },
    nodes: full,
    connections,
    pinData: {},
    meta: { templateCredsSetupCompleted: true },
    tags: [],
  };
}

// ---------------------------------------------------------------------------------------------------
// Suspicious Login Response
// ---------------------------------------------------------------------------------------------------

const VALIDATE = String.raw`
// Step 1 of docs/workflow-protocol.md: map the seven fields and validate them. No request is made here.
const raw = $('Webhook').first().json.body;
const isObject = raw !== null && typeof raw === 'object' && !Array.isArray(raw);
const v = isObject ? raw : {};
const errors = [];
if (!isObject) errors.push('the alert must be a JSON object');

const missing = (x) => x === undefined || x === null || x === '';
const nonEmpty = (x) => typeof x === 'string' && x.trim() !== '';
const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4 = new RegExp('^' + OCTET + '(\\.' + OCTET + '){3}$');
const isIPv4 = (s) => IPV4.test(s);
function isIPv6(s) {
  if (!s.includes(':') || !/^[0-9A-Fa-f:.]+$/.test(s)) return false;
  let text = s;
  const last = s.slice(s.lastIndexOf(':') + 1);
  if (last.includes('.')) {
    if (!isIPv4(last)) return false;
    text = s.slice(0, s.lastIndexOf(':') + 1) + '0:0';
  }
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groups = (h) => (h === '' ? [] : h.split(':'));
  const all = groups(halves[0]).concat(halves.length === 2 ? groups(halves[1]) : []);
  if (!all.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
  return halves.length === 2 ? all.length <= 7 : all.length === 8;
}
const isIp = (s) => typeof s === 'string' && (isIPv4(s) || isIPv6(s));

function check(field, ok, message) {
  if (!isObject) return;
  if (missing(v[field])) errors.push(field + ' is required');
  else if (!ok(v[field])) errors.push(field + ' ' + message);
}
check('event_id', (x) => nonEmpty(x) && x.length <= 128, 'must be a non-empty string of at most 128 characters');
check('event_type', nonEmpty, 'must be a non-empty string');
check('user', nonEmpty, 'must be a non-empty string');
check('source_ip', isIp, 'must be an IP address');
check('confidence', (x) => Number.isInteger(x) && x >= 0 && x <= 100, 'must be an integer from 0 to 100');
check('environment', (x) => x === 'training', 'must be "training"');
check('successful_login', (x) => typeof x === 'boolean', 'must be a boolean');

const alert = {
  event_id: v.event_id,
  event_type: v.event_type,
  user: v.user,
  source_ip: v.source_ip,
  confidence: v.confidence,
  environment: v.environment,
  successful_login: v.successful_login,
};
return [{
  json: {
    valid: errors.length === 0,
    errors,
    event_id: typeof v.event_id === 'string' ? v.event_id : null,
    alert,
    // evidence, not a condition of the run: kept when it is a count, otherwise null
    failed_attempts: Number.isInteger(v.failed_attempts) && v.failed_attempts >= 0 ? v.failed_attempts : null,
  },
}];
`;

const CHECK_IDENTITY = `
// Step 2: the identity must exist and belong to the triggering user.
const r = $input.first().json;
const alert = $('Validate').first().json.alert;
let errors = [];
if (r.statusCode === 404) errors = ['identity not found'];
else if (r.statusCode !== 200) throw new Error('GET /identity answered ' + r.statusCode + ' ' + JSON.stringify(r.body).slice(0, 300));
else if (!r.body || typeof r.body !== 'object' || r.body.user !== alert.user) errors = ['identity mismatch'];
return [{
  json: {
    valid: errors.length === 0,
    errors,
    event_id: alert.event_id,
    identity: errors.length === 0 ? r.body : null,
  },
}];
`;

const SELECT_CASE_ACTION = `
// Step 3: 404 selects create, 200 selects update; a blocked case means this is a duplicate delivery.
const r = $input.first().json;
if (r.statusCode === 404) {
  return [{ json: { case_action: 'create', existing: null, duplicate: false } }];
}
if (r.statusCode === 200 && r.body && typeof r.body === 'object') {
  return [{ json: { case_action: 'update', existing: r.body, duplicate: r.body.final_action === 'blocked' } }];
}
throw new Error('case lookup failed: GET /cases answered ' + r.statusCode);
`;

const DUPLICATE = `
// Step 4, duplicate delivery (the case says blocked): no approval, no block. An update replaces only the
// fields it sends, so the first run's approver, verification, expiry and rollback stay as they are.
return [{ json: { outcome: { result: 'duplicate_delivery', final_action: 'blocked' } } }];
`;

// The verification, expiry and rollback of an outcome that ends with this event's entry on the blocklist
// (\`e\`, checked by the node). Each n8n Code node runs on its own, so the two nodes that can conclude
// "blocked" share this text rather than a function.
const BLOCKED_OUTCOME_FIELDS = `      verification: {
        method: 'GET /blocklist/' + alert.source_ip,
        blocked: true,
        entry_event_id: e.event_id,
        verified_at: new Date().toISOString(),
      },
      expiry: { expires_minutes: 10, expires_at: e.expires_at },
      rollback: { method: 'DELETE /blocklist/' + alert.source_ip, workflow: 'Suspicious Login Rollback', status: 'available' },
`;

const CHECK_EARLIER_BLOCK = `
// Step 4, duplicate delivery behind a case that does not say blocked (its record never landed): the
// blocklist lookup shows this event's entry. Only this update path pays for the lookup.
const r = $input.first().json;
const alert = $('Validate').first().json.alert;
if (r.statusCode !== 200 || !r.body || typeof r.body !== 'object') {
  throw new Error('GET /blocklist answered ' + r.statusCode + ' ' + JSON.stringify(r.body).slice(0, 300));
}
const e = r.body.entry;
if (r.body.blocked !== true || !e || e.event_id !== alert.event_id || e.ip !== alert.source_ip) {
  return [{ json: { earlier: false } }];
}
return [{
  json: {
    earlier: true,
    outcome: {
      result: 'duplicate_delivery',
      final_action: 'blocked',
${BLOCKED_OUTCOME_FIELDS}    },
  },
}];
`;

const BELOW_THRESHOLD = `
// Step 4, confidence below 80: record the enrichment, request no containment.
return [{
  json: {
    outcome: {
      decision: 'below_threshold',
      result: 'below_threshold',
      final_action: 'none',
      approver: null,
      verification: { method: 'none', blocked: false },
      expiry: null,
      rollback: null,
    },
  },
}];
`;

const READ_DECISION = `
// Step 5: the Wait node resumes either with the approver's POST (headers + body) or, when the time
// limit passes, with its input item unchanged (the approval notification record: no headers).
const w = $input.first().json;
const resumed = w !== null && typeof w === 'object' && w.headers !== undefined && 'body' in w;
const body = resumed && w.body !== null && typeof w.body === 'object' && !Array.isArray(w.body) ? w.body : null;
const named = body && typeof body.approver === 'string' ? body.approver.trim() : '';
const approver = named === '' ? null : named;
const approved = body !== null && body.decision === 'approve' && approver !== null;
const result = !resumed ? 'approval_timed_out' : approved ? 'blocked' : 'approval_rejected';
return [{
  json: {
    resumed,
    approved,
    approver,
    decision: body && typeof body.decision === 'string' ? body.decision : null,
    result,
  },
}];
`;

const NO_ACTION = `
// Step 5, rejection or timeout: no block request; record who answered (or nobody).
const d = $input.first().json;
return [{
  json: {
    outcome: {
      decision: 'approval_requested',
      result: d.result,
      final_action: 'none',
      approver: d.approver,
      verification: { method: 'none', blocked: false },
      expiry: null,
      rollback: null,
    },
  },
}];
`;

const CHECK_BLOCK = `
// Step 6: 201 is the new entry; 409 already_blocked with this event's entry is the block made by an
// earlier delivery of the same event and counts as existing (it is not repeated). Anything else fails.
const r = $input.first().json;
const alert = $('Validate').first().json.alert;
if (r.statusCode === 201 && r.body && typeof r.body === 'object') {
  return [{ json: { block: 'created', entry: r.body } }];
}
const entry = r.body && typeof r.body === 'object' ? r.body.entry : undefined;
const code = r.body && r.body.error ? r.body.error.code : undefined;
if (r.statusCode === 409 && code === 'already_blocked' && entry && entry.event_id === alert.event_id && entry.ip === alert.source_ip) {
  return [{ json: { block: 'already_present', entry } }];
}
throw new Error('block refused: POST /blocklist answered ' + r.statusCode + ' ' + JSON.stringify(r.body).slice(0, 300));
`;

const CHECK_VERIFICATION = `
// Step 6, verification: GET /blocklist/<ip> must show exactly this run's entry.
const r = $input.first().json;
const alert = $('Validate').first().json.alert;
const decision = $('Read decision').first().json;
const e = r.body && typeof r.body === 'object' ? r.body.entry : undefined;
const ok = r.statusCode === 200 && r.body.blocked === true && e && e.event_id === alert.event_id && e.ip === alert.source_ip;
if (!ok) {
  throw new Error('block verification failed: GET /blocklist answered ' + r.statusCode + ' ' + JSON.stringify(r.body).slice(0, 300));
}
return [{
  json: {
    outcome: {
      decision: 'approval_requested',
      result: 'blocked',
      final_action: 'blocked',
      approver: decision.approver,
${BLOCKED_OUTCOME_FIELDS}    },
  },
}];
`;

const BUILD_RECORD = `
// Step 7: one case record, whatever branch led here: the alert, the evidence and the case action, plus
// the fields of the branch's outcome (the input item).
const o = $input.first().json.outcome;
const v = $('Validate').first().json;
const a = v.alert;
const record = {
  event_id: a.event_id,
  event_type: a.event_type,
  user: a.user,
  source_ip: a.source_ip,
  confidence: a.confidence,
  successful_login: a.successful_login,
  environment: a.environment,
  evidence: {
    alert: { ...a, failed_attempts: v.failed_attempts },
    identity: $('Check identity').first().json.identity,
  },
  case_action: $('Select case action').first().json.case_action,
  ...o,
};
return [{ json: { record } }];
`;

const ADD_RECORD_RETRY = `
// Connector failure: only Record is resumed, with the same record plus record_retry. Nothing else runs again.
const record = $('Build record').first().json.record;
return [{ json: { record: { ...record, record_retry: { attempts: 2, owner_notified: true } } } }];
`;

const approvalBody = [
  '{',
  "channel: 'approval', recipient: 'soc-approver',",
  `subject: 'Approval requested: block ' + ${ALERT}.source_ip,`,
  `message: 'Suspicious login of ' + ${ALERT}.user + ' from ' + ${ALERT}.source_ip + ' (event ' + ${ALERT}.event_id + ', confidence ' + ${ALERT}.confidence + '). To block ' + ${ALERT}.source_ip + ' for 10 minutes POST {"decision": "approve", "approver": "<your name>"} to resume_url; {"decision": "reject", ...} or no answer within ' + $('Settings').first().json.approval_timeout_seconds + ' s takes no action.',`,
  `event_id: ${ALERT}.event_id, severity: 'high', decision_requested: 'block_source_ip',`,
  `source_ip: ${ALERT}.source_ip, expires_minutes: 10, resume_url: $execution.resumeUrl`,
  '}',
].join(' ');

const ownerBody = [
  '{',
  "channel: 'owner', recipient: 'case-owner',",
  `subject: 'Case write failed: ' + ${ALERT}.event_id,`,
  `message: 'POST /cases answered ' + $json.statusCode + ' (' + (($json.body && $json.body.error && $json.body.error.code) || 'error') + ') for event ' + ${ALERT}.event_id + ' (result ' + $('Build record').first().json.record.result + '). The block is not repeated; only the case write is resumed once GET /health reports case_mode healthy (at most 30 polls, 2 s apart).',`,
  `event_id: ${ALERT}.event_id, severity: 'high', pending: 'record'`,
  '}',
].join(' ');

const validationBody =
  "{ channel: 'validation', recipient: 'soc-analyst', subject: 'Alert rejected by validation', message: $json.errors.join('; '), event_id: $json.event_id, severity: 'low', errors: $json.errors }";

const response = workflow({
  id: RESPONSE_ID,
  name: 'Suspicious Login Response',
  number: 1,
  nodes: [
    webhook('suspicious-login'),
    settings([
      {
        name: 'approval_timeout_seconds',
        value:
          '={{ Number.isInteger(Number($env.APPROVAL_TIMEOUT_SECONDS)) && Number($env.APPROVAL_TIMEOUT_SECONDS) > 0 ? Number($env.APPROVAL_TIMEOUT_SECONDS) : 120 }}',
        type: 'number',
      },
    ]),
    code('Validate', VALIDATE),
    iff('Valid?', '$json.valid === true'),
    http('Notify validation error', 'POST', '/notify', { body: validationBody, full: false }),
    stop(
      'Stop: alert rejected',
      "={{ 'Alert rejected: ' + (Array.isArray($json.errors) ? $json.errors.join('; ') : $json.message) }}",
    ),
    http('Enrich', 'GET', `/identity/{{ encodeURIComponent(${ALERT}.user) }}`),
    code('Check identity', CHECK_IDENTITY),
    iff('Identity ok?', '$json.valid === true'),
    http('Case lookup', 'GET', `/cases/{{ encodeURIComponent(${ALERT}.event_id) }}`),
    code('Select case action', SELECT_CASE_ACTION),
    iff('Decide (confidence >= 80)', `${ALERT}.confidence >= 80`),
    code('Below threshold', BELOW_THRESHOLD),
    iff('Duplicate delivery?', "$('Select case action').first().json.duplicate === true"),
    code('Keep first outcome', DUPLICATE),
    iff('Case exists?', "$('Select case action').first().json.case_action === 'update'"),
    http('Blocklist lookup', 'GET', `/blocklist/{{ encodeURIComponent(${ALERT}.source_ip) }}`),
    code('Check earlier block', CHECK_EARLIER_BLOCK),
    iff('Blocked by this event?', '$json.earlier === true'),
    http('Request approval', 'POST', '/notify', { body: approvalBody, full: false }),
    {
      name: 'Wait for approval',
      type: 'n8n-nodes-base.wait',
      typeVersion: 1.1,
      parameters: {
        resume: 'webhook',
        httpMethod: 'POST',
        limitWaitTime: true,
        limitType: 'afterTimeInterval',
        resumeAmount: "={{ $('Settings').first().json.approval_timeout_seconds }}",
        resumeUnit: 'seconds',
        options: {},
      },
    },
    code('Read decision', READ_DECISION),
    iff('Approved?', '$json.approved === true'),
    code('No action', NO_ACTION),
    http('Block', 'POST', '/blocklist', {
      body: `{ ip: ${ALERT}.source_ip, event_id: ${ALERT}.event_id, expires_minutes: 10 }`,
    }),
    code('Check block', CHECK_BLOCK),
    http('Verify block', 'GET', `/blocklist/{{ encodeURIComponent(${ALERT}.source_ip) }}`),
    code('Check verification', CHECK_VERIFICATION),
    code('Build record', BUILD_RECORD),
    http('Record', 'POST', '/cases', { body: '$json.record' }),
    iff('Case written?', '$json.statusCode >= 200 && $json.statusCode < 300'),
    { name: 'Done', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} },
    iff('Connector failure?', '$json.statusCode >= 500 && $runIndex === 0'),
    stop('Stop: case write failed', "={{ 'Case write failed: POST /cases answered ' + $json.statusCode }}"),
    http('Notify owner', 'POST', '/notify', { body: ownerBody, full: false }),
    http('Health', 'GET', '/health'),
    iff('Healthy?', "$json.statusCode === 200 && !!$json.body && $json.body.case_mode === 'healthy'"),
    iff('Polls left?', '$runIndex < 29'),
    {
      name: 'Wait 2 s',
      type: 'n8n-nodes-base.wait',
      typeVersion: 1.1,
      parameters: { resume: 'timeInterval', amount: 2, unit: 'seconds' },
    },
    stop(
      'Stop: connector not recovered',
      'Case connector not healthy after 30 polls of GET /health; the case was not written. The block (if any) stands.',
    ),
    code('Add record_retry', ADD_RECORD_RETRY),
  ],
  layout: {
    Webhook: [0, 0],
    Settings: [1, 0],
    Validate: [2, 0],
    'Valid?': [3, 0],
    'Notify validation error': [5, -2],
    'Stop: alert rejected': [6, -2],
    Enrich: [4, 0],
    'Check identity': [5, 0],
    'Identity ok?': [6, 0],
    'Case lookup': [7, 0],
    'Select case action': [8, 0],
    'Decide (confidence >= 80)': [9, 0],
    'Below threshold': [10, -2],
    'Duplicate delivery?': [10, 0],
    'Keep first outcome': [11, -1],
    'Case exists?': [11, 1],
    'Blocklist lookup': [12, 0],
    'Check earlier block': [13, 0],
    'Blocked by this event?': [14, 0],
    'Request approval': [15, 1],
    'Wait for approval': [16, 1],
    'Read decision': [17, 1],
    'Approved?': [18, 1],
    'No action': [19, 0],
    Block: [19, 2],
    'Check block': [20, 2],
    'Verify block': [21, 2],
    'Check verification': [22, 2],
    'Build record': [23, 0],
    Record: [24, 0],
    'Case written?': [25, 0],
    Done: [26, -1],
    'Connector failure?': [26, 1],
    'Stop: case write failed': [27, 2],
    'Notify owner': [27, 0],
    Health: [28, 0],
    'Healthy?': [29, 0],
    'Polls left?': [30, 1],
    'Wait 2 s': [29, 2],
    'Stop: connector not recovered': [31, 2],
    'Add record_retry': [30, -1],
  },
  edges: [
    ['Webhook', 'Settings'],
    ['Settings', 'Validate'],
    ['Validate', 'Valid?'],
    ['Valid?', 'Enrich', 0],
    ['Valid?', 'Notify validation error', 1],
    ['Notify validation error', 'Stop: alert rejected'],
    ['Enrich', 'Check identity'],
    ['Check identity', 'Identity ok?'],
    ['Identity ok?', 'Case lookup', 0],
    ['Identity ok?', 'Notify validation error', 1],
    ['Case lookup', 'Select case action'],
    ['Select case action', 'Decide (confidence >= 80)'],
    ['Decide (confidence >= 80)', 'Duplicate delivery?', 0],
    ['Decide (confidence >= 80)', 'Below threshold', 1],
    ['Below threshold', 'Build record'],
    ['Duplicate delivery?', 'Keep first outcome', 0],
    ['Duplicate delivery?', 'Case exists?', 1],
    ['Keep first outcome', 'Build record'],
    ['Case exists?', 'Blocklist lookup', 0],
    ['Case exists?', 'Request approval', 1],
    ['Blocklist lookup', 'Check earlier block'],
    ['Check earlier block', 'Blocked by this event?'],
    ['Blocked by this event?', 'Build record', 0],
    ['Blocked by this event?', 'Request approval', 1],
    ['Request approval', 'Wait for approval'],
    ['Wait for approval', 'Read decision'],
    ['Read decision', 'Approved?'],
    ['Approved?', 'Block', 0],
    ['Approved?', 'No action', 1],
    ['No action', 'Build record'],
    ['Block', 'Check block'],
    ['Check block', 'Verify block'],
    ['Verify block', 'Check verification'],
    ['Check verification', 'Build record'],
    ['Build record', 'Record'],
    ['Record', 'Case written?'],
    ['Case written?', 'Done', 0],
    ['Case written?', 'Connector failure?', 1],
    ['Connector failure?', 'Notify owner', 0],
    ['Connector failure?', 'Stop: case write failed', 1],
    ['Notify owner', 'Health'],
    ['Health', 'Healthy?'],
    ['Healthy?', 'Add record_retry', 0],
    ['Healthy?', 'Polls left?', 1],
    ['Polls left?', 'Wait 2 s', 0],
    ['Polls left?', 'Stop: connector not recovered', 1],
    ['Wait 2 s', 'Health'],
    ['Add record_retry', 'Record'],
  ],
});

// ---------------------------------------------------------------------------------------------------
// Suspicious Login Rollback
// ---------------------------------------------------------------------------------------------------

const RB_VALIDATE = `
// The rollback trigger carries the event_id of a blocked case. requested_at was taken by Settings.
const raw = $('Webhook').first().json.body;
const id = raw && typeof raw === 'object' ? raw.event_id : undefined;
const valid = typeof id === 'string' && id.trim() !== '' && id.length <= 128;
return [{ json: { valid, event_id: valid ? id : null, errors: valid ? [] : ['event_id is required (non-empty string)'] } }];
`;

const RB_RECORD = `
// Absence verified: record the rollback and the recovery time (trigger -> verified absence).
const s = $('Settings').first().json;
const ip = $('Case lookup').first().json.body.source_ip;
const unblock = $('Unblock').first().json;
const completedAt = new Date();
const recovery = (completedAt.getTime() - new Date(s.requested_at).getTime()) / 1000;
return [{
  json: {
    record: {
      event_id: $('Validate').first().json.event_id,
      rollback: {
        method: 'DELETE /blocklist/' + ip,
        workflow: 'Suspicious Login Rollback',
        status: 'completed',
        verified_absent: true,
        entry_removed: unblock.statusCode === 200,
        requested_at: s.requested_at,
        completed_at: completedAt.toISOString(),
        recovery_seconds: Math.round(recovery * 1000) / 1000,
      },
      final_action: 'rolled_back',
    },
  },
}];
`;

const RB_EVENT = "$('Validate').first().json.event_id";
const RB_IP = "$('Case lookup').first().json.body.source_ip";

const rollback = workflow({
  id: ROLLBACK_ID,
  name: 'Suspicious Login Rollback',
  number: 2,
  nodes: [
    webhook('suspicious-login-rollback'),
    settings([{ name: 'requested_at', value: '={{ new Date().toISOString() }}', type: 'string' }]),
    code('Validate', RB_VALIDATE),
    iff('Valid?', '$json.valid === true'),
    stop('Stop: invalid rollback request', "={{ 'Rollback rejected: ' + $json.errors.join('; ') }}"),
    http('Case lookup', 'GET', `/cases/{{ encodeURIComponent(${RB_EVENT}) }}`),
    iff(
      'Case found?',
      "$json.statusCode === 200 && !!$json.body && typeof $json.body.source_ip === 'string'",
    ),
    stop(
      'Stop: no case',
      `={{ 'Rollback failed: GET /cases/' + ${RB_EVENT} + ' answered ' + $json.statusCode + ' (no case with a source_ip)' }}`,
    ),
    http('Unblock', 'DELETE', `/blocklist/{{ encodeURIComponent(${RB_IP}) }}`),
    iff(
      'Unblocked?',
      "$json.statusCode === 200 || ($json.statusCode === 404 && !!$json.body && !!$json.body.error && $json.body.error.code === 'not_blocked')",
    ),
    stop('Stop: unblock failed', "={{ 'Rollback failed: DELETE /blocklist answered ' + $json.statusCode }}"),
    http('Verify absence', 'GET', `/blocklist/{{ encodeURIComponent(${RB_IP}) }}`),
    iff('Absent?', '$json.statusCode === 200 && !!$json.body && $json.body.blocked === false'),
    stop(
      'Stop: still blocked',
      "={{ 'Rollback failed: GET /blocklist still answers ' + $json.statusCode + ' ' + JSON.stringify($json.body) }}",
    ),
    code('Build rollback record', RB_RECORD),
    http('Record rollback', 'POST', '/cases', { body: '$json.record', full: false }),
  ],
  layout: {
    Webhook: [0, 0],
    Settings: [1, 0],
    Validate: [2, 0],
    'Valid?': [3, 0],
    'Stop: invalid rollback request': [4, 1],
    'Case lookup': [4, 0],
    'Case found?': [5, 0],
    'Stop: no case': [6, 1],
    Unblock: [6, 0],
    'Unblocked?': [7, 0],
    'Stop: unblock failed': [8, 1],
    'Verify absence': [8, 0],
    'Absent?': [9, 0],
    'Stop: still blocked': [10, 1],
    'Build rollback record': [10, 0],
    'Record rollback': [11, 0],
  },
  edges: [
    ['Webhook', 'Settings'],
    ['Settings', 'Validate'],
    ['Validate', 'Valid?'],
    ['Valid?', 'Case lookup', 0],
    ['Valid?', 'Stop: invalid rollback request', 1],
    ['Case lookup', 'Case found?'],
    ['Case found?', 'Unblock', 0],
    ['Case found?', 'Stop: no case', 1],
    ['Unblock', 'Unblocked?'],
    ['Unblocked?', 'Verify absence', 0],
    ['Unblocked?', 'Stop: unblock failed', 1],
    ['Verify absence', 'Absent?'],
    ['Absent?', 'Build rollback record', 0],
    ['Absent?', 'Stop: still blocked', 1],
    ['Build rollback record', 'Record rollback'],
  ],
});

writeFileSync(join(OUT, 'suspicious-login-response.json'), `${JSON.stringify(response, null, 2)}\n`);
writeFileSync(join(OUT, 'suspicious-login-rollback.json'), `${JSON.stringify(rollback, null, 2)}\n`);
console.log(`wrote ${OUT}/suspicious-login-response.json and suspicious-login-rollback.json`);
