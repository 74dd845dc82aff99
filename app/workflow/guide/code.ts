/**
 * The guide's code blocks, word for word: the JavaScript of its Code nodes and the JSON bodies of its
 * HTTP Request nodes, as docs/trainee-guide.md shows them (a test holds each block equal to its node's).
 */

export const VALIDATE = `const body = $('Webhook').first().json.body || {};
const fields = ['event_id', 'event_type', 'user', 'source_ip', 'confidence', 'environment', 'successful_login'];
const errors = [];
for (const field of fields) {
  const value = body[field];
  if (value === undefined || value === null || value === '') errors.push(field + ' is required');
  else if (field === 'environment' && value !== 'training') errors.push('environment must be "training"');
  else if (field === 'confidence' && !Number.isInteger(value)) errors.push('confidence must be a whole number');
  else if (field === 'successful_login' && typeof value !== 'boolean') errors.push('successful_login must be true or false');
}
const event_id = typeof body.event_id === 'string' ? body.event_id : null;
return [{ json: { valid: errors.length === 0, errors: errors, event_id: event_id } }];`;

export const NOTIFY_VALIDATION_ERROR = `{{ JSON.stringify({
  channel: 'validation', recipient: 'soc-analyst', subject: 'Alert rejected by validation',
  message: $json.errors.join('; '), event_id: $json.event_id, severity: 'low', errors: $json.errors
}) }}`;

export const CHECK_IDENTITY = `const answer = $input.first().json;
const alert = $('Webhook').first().json.body;
const found = answer.statusCode === 200 && answer.body.user === alert.user;
const errors = found ? [] : [(answer.statusCode === 404 ? 'identity not found: user ' : 'identity mismatch: user ') + alert.user];
return [{ json: { valid: found, errors: errors, event_id: alert.event_id, identity: found ? answer.body : null } }];`;

export const SELECT_CASE_ACTION = `const answer = $input.first().json;
if (answer.statusCode === 404) return [{ json: { case_action: 'create', duplicate: false } }];
if (answer.statusCode === 200) {
  return [{ json: { case_action: 'update', duplicate: answer.body.final_action === 'blocked' } }];
}
throw new Error('GET /cases answered ' + answer.statusCode);`;

export const BELOW_THRESHOLD = `return [{ json: { outcome: {
  decision: 'below_threshold', result: 'below_threshold', final_action: 'none', approver: null,
  verification: { method: 'none', blocked: false }, expiry: null, rollback: null,
} } }];`;

export const BUILD_RECORD = `const alert = $('Webhook').first().json.body;
const record = {
  event_id: alert.event_id, event_type: alert.event_type, user: alert.user, source_ip: alert.source_ip,
  confidence: alert.confidence, successful_login: alert.successful_login, environment: alert.environment,
  evidence: { alert: alert, identity: $('Check identity').first().json.identity },
  case_action: $('Select case action').first().json.case_action,
  ...$input.first().json.outcome,
};
return [{ json: { record: record } }];`;

export const REQUEST_APPROVAL = `{{ JSON.stringify({
  channel: 'approval', recipient: 'soc-approver', severity: 'high', expires_minutes: 10,
  subject: 'Approval requested: block ' + $('Webhook').first().json.body.source_ip,
  message: 'Suspicious login of ' + $('Webhook').first().json.body.user + ' from ' + $('Webhook').first().json.body.source_ip + ', confidence ' + $('Webhook').first().json.body.confidence + '. Block the address for 10 minutes?',
  event_id: $('Webhook').first().json.body.event_id,
  source_ip: $('Webhook').first().json.body.source_ip,
  resume_url: $execution.resumeUrl
}) }}`;

export const READ_DECISION = `const answer = $input.first().json;
const resumed = answer.headers !== undefined && answer.body !== undefined;
const body = resumed && answer.body ? answer.body : {};
const name = typeof body.approver === 'string' ? body.approver.trim() : '';
const approved = body.decision === 'approve' && name !== '';
const result = !resumed ? 'approval_timed_out' : approved ? 'blocked' : 'approval_rejected';
return [{ json: { approved: approved, approver: name === '' ? null : name, result: result } }];`;

export const NO_ACTION = `const decision = $input.first().json;
return [{ json: { outcome: {
  decision: 'approval_requested', result: decision.result, final_action: 'none', approver: decision.approver,
  verification: { method: 'none', blocked: false }, expiry: null, rollback: null,
} } }];`;

export const CHECK_VERIFICATION = `const alert = $('Webhook').first().json.body;
const answer = $input.first().json;
const entry = answer.entry;
if (answer.blocked !== true || !entry || entry.event_id !== alert.event_id || entry.ip !== alert.source_ip) {
  throw new Error('block not verified: ' + JSON.stringify(answer));
}
return [{ json: { outcome: {
  decision: 'approval_requested', result: 'blocked', final_action: 'blocked',
  approver: $('Read decision').first().json.approver,
  verification: { method: 'GET /blocklist/' + alert.source_ip, blocked: true,
                  entry_event_id: entry.event_id, verified_at: new Date().toISOString() },
  expiry: { expires_minutes: 10, expires_at: entry.expires_at },
  rollback: { method: 'DELETE /blocklist/' + alert.source_ip, workflow: 'Suspicious Login Rollback',
              status: 'available' },
} } }];`;

export const NOTIFY_OWNER = `{{ JSON.stringify({
  channel: 'owner', recipient: 'case-owner', severity: 'high', pending: 'record',
  subject: 'Case write failed: ' + $('Webhook').first().json.body.event_id,
  message: 'POST /cases failed for event ' + $('Webhook').first().json.body.event_id + '. The block stands and is not repeated; the case is written again once GET /health says case_mode healthy.',
  event_id: $('Webhook').first().json.body.event_id
}) }}`;

export const BUILD_ROLLBACK_RECORD = `const requested = $('Note the time').first().json.requested_at;
const completed = new Date().toISOString();
const ip = $('Case lookup').first().json.source_ip;
return [{ json: { record: {
  event_id: $('Webhook').first().json.body.event_id,
  final_action: 'rolled_back',
  rollback: {
    method: 'DELETE /blocklist/' + ip, workflow: 'Suspicious Login Rollback', status: 'completed',
    verified_absent: true, requested_at: requested, completed_at: completed,
    recovery_seconds: (new Date(completed) - new Date(requested)) / 1000,
  },
} } }];`;
