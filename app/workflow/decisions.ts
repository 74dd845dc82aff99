/**
 * The workflow's decisions, written once (docs/workflow-protocol.md, steps 1-7 and the rollback): the
 * TypeScript reference (app/targets/reference-workflow.ts) calls these functions, and the generator
 * copies their source text into the n8n Code nodes (app/workflow/n8n/), so both run the same code.
 *
 * Rules of this file, because its text runs inside n8n's Code node as well:
 * - pure functions of their arguments (the time is an argument); no I/O, no imports but ./constants.js and
 *   ./alert.js (step 1, the alert's fields and validation);
 * - every top-level name is unique across constants.ts, this file and the Code-node files (the generator
 *   pastes the declarations a node needs side by side and checks that);
 * - plain JavaScript once the types are stripped: no enums, namespaces or parameter properties.
 */
import {
  APPROVAL_THRESHOLD,
  BLOCK_EXPIRES_MINUTES,
  EVENT_ID_MAX_LENGTH,
  HEALTH_POLL_INTERVAL_SECONDS,
  HEALTH_POLL_TRIES,
  ROLLBACK_WORKFLOW,
} from './constants.js';

export * from './alert.js';

import { isJsonObject, isNonBlank, type Json, type MappedAlert } from './alert.js';

/** Step 2's answer: the identity, or the validation errors that stop the run. */
export interface IdentityCheck {
  valid: boolean;
  errors: string[];
  event_id: string;
  identity: Json | null;
}

/** Step 2: GET /identity/<user> must answer 200 with this user; 404 and a mismatch stop the run. */
export function checkIdentity(statusCode: number, body: unknown, alert: MappedAlert): IdentityCheck {
  let errors: string[] = [];
  if (statusCode === 404) errors = ['identity not found'];
  else if (statusCode !== 200) throw new Error(`GET /identity answered ${statusCode} ${excerpt(body)}`);
  else if (!isJsonObject(body) || body.user !== alert.user) errors = ['identity mismatch'];
  return {
    valid: errors.length === 0,
    errors,
    event_id: alert.event_id,
    identity: errors.length === 0 && isJsonObject(body) ? body : null,
  };
}

export interface CaseSelection {
  case_action: 'create' | 'update';
  existing: Json | null;
  /** The case says blocked: an earlier delivery did the work. */
  duplicate: boolean;
}

/** Step 3: 404 selects create, 200 selects update; anything else ends the run with an error. */
export function selectCaseAction(statusCode: number, body: unknown): CaseSelection {
  if (statusCode === 404) return { case_action: 'create', existing: null, duplicate: false };
  if (statusCode === 200 && isJsonObject(body)) {
    return { case_action: 'update', existing: body, duplicate: body.final_action === 'blocked' };
  }
  throw new Error(`case lookup failed: GET /cases answered ${statusCode}`);
}

/** Step 4: at or above the threshold a block is asked for; below it nothing is contained. */
export function requiresApproval(alert: MappedAlert): boolean {
  return alert.confidence >= APPROVAL_THRESHOLD;
}

/** An entry on the blocklist, as GET /blocklist/<ip> and POST /blocklist show it. */
export interface BlockEntry extends Json {
  ip: string;
  event_id: string;
  expires_at: string;
}

/** This event's entry for this address, or null. */
export function entryOfEvent(entry: unknown, alert: MappedAlert): BlockEntry | null {
  if (!isJsonObject(entry) || entry.event_id !== alert.event_id || entry.ip !== alert.source_ip) return null;
  return entry as BlockEntry;
}

/** What a branch contributes to the case record (step 7): every field but the alert's. */
export type Outcome = Json & { result: string; final_action: string };

/** The verification, expiry and rollback of an outcome that ends with this event's entry blocked. */
export function blockedFields(alert: MappedAlert, entry: BlockEntry, verifiedAt: string) {
  return {
    verification: {
      method: `GET /blocklist/${alert.source_ip}`,
      blocked: true,
      entry_event_id: entry.event_id,
      verified_at: verifiedAt,
    },
    expiry: { expires_minutes: BLOCK_EXPIRES_MINUTES, expires_at: entry.expires_at },
    rollback: {
      method: `DELETE /blocklist/${alert.source_ip}`,
      workflow: ROLLBACK_WORKFLOW,
      status: 'available',
    },
  };
}

/** The fields of an outcome that blocked nothing. */
export function noBlockFields() {
  return { verification: { method: 'none', blocked: false }, expiry: null, rollback: null };
}

/** Step 4, below the threshold: record the enrichment, request no containment. */
export function belowThresholdOutcome(): Outcome {
  return {
    decision: 'below_threshold',
    result: 'below_threshold',
    final_action: 'none',
    approver: null,
    ...noBlockFields(),
  };
}

/**
 * Step 4, duplicate delivery (the case says blocked): no approval, no block. An update replaces only the
 * fields it sends, so the first run's approver, verification, expiry and rollback stay as they are.
 */
export function duplicateOutcome(): Outcome {
  return { result: 'duplicate_delivery', final_action: 'blocked' };
}

/**
 * Step 4, duplicate delivery behind a case that does not say blocked (its record never landed): the
 * blocklist lookup shows this event's entry. Null when it does not (the run asks for approval).
 */
export function earlierBlockOutcome(
  statusCode: number,
  body: unknown,
  alert: MappedAlert,
  now: string,
): Outcome | null {
  if (statusCode !== 200 || !isJsonObject(body)) {
    throw new Error(`GET /blocklist answered ${statusCode} ${excerpt(body)}`);
  }
  const entry = body.blocked === true ? entryOfEvent(body.entry, alert) : null;
  if (entry === null) return null;
  return { result: 'duplicate_delivery', final_action: 'blocked', ...blockedFields(alert, entry, now) };
}

export interface ApprovalReading {
  resumed: boolean;
  approved: boolean;
  approver: string | null;
  decision: string | null;
  result: 'blocked' | 'approval_rejected' | 'approval_timed_out';
}

/**
 * Step 5: only `decision: "approve"` with a non-blank approver approves; any other answer rejects, no
 * answer (`resumed` false) is a timeout. The approver's name is recorded trimmed.
 */
export function readApproval(resumed: boolean, answer: unknown): ApprovalReading {
  const body = resumed && isJsonObject(answer) ? answer : null;
  const named = body !== null && typeof body.approver === 'string' ? body.approver.trim() : '';
  const approver = named === '' ? null : named;
  const approved = body !== null && body.decision === 'approve' && approver !== null;
  return {
    resumed,
    approved,
    approver,
    decision: body !== null && typeof body.decision === 'string' ? body.decision : null,
    result: !resumed ? 'approval_timed_out' : approved ? 'blocked' : 'approval_rejected',
  };
}

/** Step 5, rejection or timeout: no block request; record who answered (or nobody). */
export function noActionOutcome(reading: ApprovalReading): Outcome {
  return {
    decision: 'approval_requested',
    result: reading.result,
    final_action: 'none',
    approver: reading.approver,
    ...noBlockFields(),
  };
}

/** Step 6: the body of POST /blocklist. */
export function blockRequest(alert: MappedAlert) {
  return { ip: alert.source_ip, event_id: alert.event_id, expires_minutes: BLOCK_EXPIRES_MINUTES };
}

export interface BlockCheck {
  block: 'created' | 'already_present';
  entry: Json;
}

/**
 * Step 6: 201 is the new entry; 409 already_blocked with this event's entry is the block made by an
 * earlier delivery of the same event and counts as existing (it is not repeated). Anything else fails.
 */
export function checkBlock(statusCode: number, body: unknown, alert: MappedAlert): BlockCheck {
  if (statusCode === 201 && isJsonObject(body)) return { block: 'created', entry: body };
  const error = isJsonObject(body) && isJsonObject(body.error) ? body.error : null;
  const entry = isJsonObject(body) ? entryOfEvent(body.entry, alert) : null;
  if (statusCode === 409 && error !== null && error.code === 'already_blocked' && entry !== null) {
    return { block: 'already_present', entry };
  }
  throw new Error(`block refused: POST /blocklist answered ${statusCode} ${excerpt(body)}`);
}

/** Step 6, verification: GET /blocklist/<ip> must show exactly this run's entry; the blocked outcome. */
export function verifiedBlockOutcome(
  statusCode: number,
  body: unknown,
  alert: MappedAlert,
  approver: string | null,
  now: string,
): Outcome {
  const entry = statusCode === 200 && isJsonObject(body) && body.blocked === true ? body.entry : undefined;
  const ours = entryOfEvent(entry, alert);
  if (ours === null) {
    throw new Error(`block verification failed: GET /blocklist answered ${statusCode} ${excerpt(body)}`);
  }
  return {
    decision: 'approval_requested',
    result: 'blocked',
    final_action: 'blocked',
    approver,
    ...blockedFields(alert, ours, now),
  };
}

/**
 * Step 7: one case record, whatever branch led here: the alert, the evidence and the case action, plus
 * the fields of the branch's outcome.
 */
export function buildCaseRecord(
  validation: { alert: MappedAlert; failed_attempts: number | null },
  identity: Json | null,
  caseAction: string,
  outcome: Outcome,
): Json & { event_id: string; result: string } {
  const a = validation.alert;
  return {
    event_id: a.event_id,
    event_type: a.event_type,
    user: a.user,
    source_ip: a.source_ip,
    confidence: a.confidence,
    successful_login: a.successful_login,
    environment: a.environment,
    evidence: { alert: { ...a, failed_attempts: validation.failed_attempts }, identity },
    case_action: caseAction,
    ...outcome,
  };
}

/** Connector failure: the same record again, saying it is the second attempt and the owner knows. */
export function withRecordRetry<T extends Json>(record: T): T & { record_retry: Json } {
  return { ...record, record_retry: { attempts: 2, owner_notified: true } };
}

export interface RollbackTrigger {
  valid: boolean;
  event_id: string | null;
  errors: string[];
}

/** Rollback, step 0: the trigger names the event whose block is undone. */
export function validateRollbackTrigger(raw: unknown): RollbackTrigger {
  const id = isJsonObject(raw) ? raw.event_id : undefined;
  const valid = isNonBlank(id) && id.length <= EVENT_ID_MAX_LENGTH;
  return {
    valid,
    event_id: valid ? id : null,
    errors: valid ? [] : ['event_id is required (non-empty string)'],
  };
}

/** Rollback, step 4: the record of a verified absence; recovery runs from the trigger to the absence. */
export function buildRollbackRecord(
  eventId: string,
  ip: string,
  entryRemoved: boolean,
  requestedAt: string,
  completedAt: string,
) {
  const recovery = (new Date(completedAt).getTime() - new Date(requestedAt).getTime()) / 1000;
  return {
    event_id: eventId,
    rollback: {
      method: `DELETE /blocklist/${ip}`,
      workflow: ROLLBACK_WORKFLOW,
      status: 'completed',
      verified_absent: true,
      entry_removed: entryRemoved,
      requested_at: requestedAt,
      completed_at: completedAt,
      recovery_seconds: Math.round(recovery * 1000) / 1000,
    },
    final_action: 'rolled_back',
  };
}

// ---------------------------------------------------------------------------------------------------
// The notifications and the gates. On n8n these are expressions of HTTP Request and IF nodes (an
// expression cannot call a function); test/workflow runs those expressions against these functions.

/** Step 1 (and 2): the one validation notification of a stopped run. */
export function validationNotification(errors: string[], eventId: string | null) {
  return {
    channel: 'validation',
    recipient: 'soc-analyst',
    subject: 'Alert rejected by validation',
    message: errors.join('; '),
    event_id: eventId,
    severity: 'low',
    errors,
  };
}

/** Step 5: the approval request, carrying the full resume URL. */
export function approvalNotification(alert: MappedAlert, timeoutSeconds: number, resumeUrl: string) {
  return {
    channel: 'approval',
    recipient: 'soc-approver',
    subject: `Approval requested: block ${alert.source_ip}`,
    message:
      `Suspicious login of ${alert.user} from ${alert.source_ip} (event ${alert.event_id}, confidence ` +
      `${alert.confidence}). To block ${alert.source_ip} for ${BLOCK_EXPIRES_MINUTES} minutes POST ` +
      '{"decision": "approve", "approver": "<your name>"} to resume_url; {"decision": "reject", ...} or no ' +
      `answer within ${timeoutSeconds} s takes no action.`,
    event_id: alert.event_id,
    severity: 'high',
    decision_requested: 'block_source_ip',
    source_ip: alert.source_ip,
    expires_minutes: BLOCK_EXPIRES_MINUTES,
    resume_url: resumeUrl,
  };
}

/** Step 7, connector failure: the one owner notification. */
export function ownerNotification(alert: MappedAlert, statusCode: number, body: unknown, result: string) {
  const error = isJsonObject(body) && isJsonObject(body.error) ? body.error.code : undefined;
  return {
    channel: 'owner',
    recipient: 'case-owner',
    subject: `Case write failed: ${alert.event_id}`,
    message:
      `POST /cases answered ${statusCode} (${error || 'error'}) for event ${alert.event_id} (result ` +
      `${result}). The block is not repeated; only the case write is resumed once GET /health reports ` +
      `case_mode healthy (at most ${HEALTH_POLL_TRIES} polls, ${HEALTH_POLL_INTERVAL_SECONDS} s apart).`,
    event_id: alert.event_id,
    severity: 'high',
    pending: 'record',
  };
}

/** Step 7: a 2xx is a written case. */
export function caseWritten(statusCode: number): boolean {
  return statusCode >= 200 && statusCode < 300;
}

/** Step 7: only a 5xx of the first write is a connector failure worth one recovery. */
export function isConnectorFailure(statusCode: number, attempt: number): boolean {
  return statusCode >= 500 && attempt === 0;
}

/** Step 7: GET /health says the case connector is back. */
export function connectorHealthy(statusCode: number, body: unknown): boolean {
  return statusCode === 200 && isJsonObject(body) && body.case_mode === 'healthy';
}

/** Rollback, step 1: the case exists and names the address to unblock; null when not. */
export function rollbackSourceIp(statusCode: number, body: unknown): string | null {
  return statusCode === 200 && isJsonObject(body) && typeof body.source_ip === 'string'
    ? body.source_ip
    : null;
}

/** Rollback, step 2: removed (200), or already gone (404 not_blocked). */
export function unblocked(statusCode: number, body: unknown): boolean {
  return (
    statusCode === 200 ||
    (statusCode === 404 &&
      isJsonObject(body) &&
      isJsonObject(body.error) &&
      body.error.code === 'not_blocked')
  );
}

/** Rollback, step 3: GET /blocklist/<ip> shows the address absent. */
export function verifiedAbsent(statusCode: number, body: unknown): boolean {
  return statusCode === 200 && isJsonObject(body) && body.blocked === false;
}

/** A short piece of an answer for an error message. */
export function excerpt(body: unknown): string {
  return String(JSON.stringify(body)).slice(0, 300);
}
