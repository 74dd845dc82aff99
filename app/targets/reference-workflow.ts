/**
 * The "Suspicious Login Response" and "Suspicious Login Rollback" workflows as plain TypeScript: the
 * executable form of docs/workflow-protocol.md. Every decision is a function of app/workflow/decisions.ts,
 * the same code the n8n Code nodes run; this file only adds the requests (real HTTP to the mock API, so
 * the acceptance runner judges this and the n8n export by the same destination state) and the order.
 *
 * The workflow is a table of node functions (REFERENCE_NODES, ROLLBACK_NODES); the run calls them in the
 * protocol's order. A VARIANT (e.g. a broken copy for the stage checker) replaces one entry:
 *
 *   const above80: Partial<ResponseNodes> = {          // "> 80" instead of ">= 80"
 *     decide: async (ctx, alert, selection) =>
 *       alert.confidence > 80
 *         ? REFERENCE_NODES.decide(ctx, alert, selection)
 *         : { kind: 'record', outcome: belowThresholdOutcome() },
 *   };
 *   runSuspiciousLogin(payload, ctx, { ...REFERENCE_NODES, ...above80 });
 *
 * or, on the reference target, `startReferenceTarget({ ..., variant: { response: above80 } })`.
 */

import type { ApiAnswer, ApiCaller } from '../mock-api-client/client.js';
import {
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  HEALTH_POLL_INTERVAL_SECONDS,
  HEALTH_POLL_TRIES,
} from '../workflow/constants.js';
import {
  type AlertValidation,
  type ApprovalReading,
  approvalNotification,
  belowThresholdOutcome,
  blockRequest,
  buildCaseRecord,
  buildRollbackRecord,
  type CaseSelection,
  caseWritten,
  checkBlock,
  checkIdentity,
  connectorHealthy,
  duplicateOutcome,
  earlierBlockOutcome,
  isConnectorFailure,
  type Json,
  type MappedAlert,
  noActionOutcome,
  type Outcome,
  ownerNotification,
  type RollbackTrigger,
  readApproval,
  requiresApproval,
  rollbackSourceIp,
  selectCaseAction,
  unblocked,
  validateAlert,
  validateRollbackTrigger,
  validationNotification,
  verifiedAbsent,
  verifiedBlockOutcome,
  withRecordRetry,
} from '../workflow/decisions.js';

/** What the approver's POST to the resume URL produced, as the Wait node of n8n would see it. */
export type ApprovalOutcome =
  | { kind: 'resumed'; body: unknown }
  | { kind: 'timed_out' }
  | { kind: 'cancelled' };

export interface ApprovalWait {
  /** The full resume URL, signature included: the approver needs nothing else. */
  readonly resumeUrl: string;
  readonly outcome: Promise<ApprovalOutcome>;
  cancel(): void;
}

/** Everything a run may use besides the mock API; the workflow host provides it. */
export interface RunContext {
  readonly api: ApiCaller;
  openApprovalWait(timeoutMs: number): ApprovalWait;
  readonly settings: WorkflowSettings;
  readonly signal: AbortSignal;
  /** When the trigger arrived: the rollback's recovery time is measured from it. */
  readonly triggeredAt: Date;
  now(): Date;
  /** The run's own history (n8n keeps one per execution); never used to judge a run. */
  trace(node: string, message: string): void;
}

export interface WorkflowSettings {
  approvalTimeoutMs: number;
  /** Record's resume after a connector failure: at most this many GET /health, this far apart. */
  healthPollTries: number;
  healthPollIntervalMs: number;
}

export const DEFAULT_SETTINGS: WorkflowSettings = {
  approvalTimeoutMs: DEFAULT_APPROVAL_TIMEOUT_SECONDS * 1000,
  healthPollTries: HEALTH_POLL_TRIES,
  healthPollIntervalMs: HEALTH_POLL_INTERVAL_SECONDS * 1000,
};

/** The run stopped on purpose (n8n: Stop and Error), after recording why. */
export class StopRun extends Error {
  override name = 'StopRun';
}

/** The mock API answered something the protocol has no branch for; the run ends with an error. */
export class RunFailed extends Error {
  override name = 'RunFailed';
}

/** Decide's verdict: record an outcome at once (below threshold, duplicate delivery), or ask. */
export type Decision = { kind: 'record'; outcome: Outcome } | { kind: 'request_approval' };

/** The response workflow's nodes; n8n's node names in brackets. */
export interface ResponseNodes {
  /** [Validate] step 1, no request. */
  validate(payload: unknown): AlertValidation;
  /** [Enrich, Check identity] step 2: the identity, or the validation notification and StopRun. */
  enrich(ctx: RunContext, alert: MappedAlert): Promise<Json | null>;
  /** [Case lookup, Select case action] step 3. */
  lookupCase(ctx: RunContext, alert: MappedAlert): Promise<CaseSelection>;
  /** [Decide, Below threshold, Duplicate delivery?, Case exists?, Blocklist lookup, ...] step 4. */
  decide(ctx: RunContext, alert: MappedAlert, selection: CaseSelection): Promise<Decision>;
  /** [Request approval, Wait for approval, Read decision] step 5. */
  approve(ctx: RunContext, alert: MappedAlert): Promise<ApprovalReading>;
  /** [No action] step 5: the outcome of a rejection or timeout. */
  noAction(reading: ApprovalReading): Outcome;
  /** [Block, Check block, Verify block, Check verification] step 6: the blocked outcome. */
  block(ctx: RunContext, alert: MappedAlert, approval: ApprovalReading): Promise<Outcome>;
  /** [Build record] step 7. */
  buildRecord(validation: AlertValidation, identity: Json | null, caseAction: string, outcome: Outcome): Json;
  /** [Record, Case written?, Connector failure?, Notify owner, Health, ..., Add record_retry] step 7. */
  record(ctx: RunContext, alert: MappedAlert, record: Json): Promise<void>;
}

export const REFERENCE_NODES: ResponseNodes = {
  validate: validateAlert,

  async enrich(ctx, alert) {
    const answer = await call(ctx, 'GET', `/identity/${encodeURIComponent(alert.user)}`);
    const check = checkIdentity(answer.status, answer.body, alert);
    if (!check.valid) return recordValidationError(ctx, check.errors, check.event_id);
    ctx.trace('enrich', `identity ${alert.user}`);
    return check.identity;
  },

  async lookupCase(ctx, alert) {
    const answer = await call(ctx, 'GET', `/cases/${encodeURIComponent(alert.event_id)}`);
    const selection = selectCaseAction(answer.status, answer.body);
    ctx.trace('lookupCase', `${selection.case_action}${selection.duplicate ? ' (case says blocked)' : ''}`);
    return selection;
  },

  async decide(ctx, alert, selection) {
    if (!requiresApproval(alert)) {
      ctx.trace('decide', `confidence ${alert.confidence}: below the threshold, no containment`);
      return { kind: 'record', outcome: belowThresholdOutcome() };
    }
    if (selection.duplicate) {
      ctx.trace('decide', 'duplicate delivery: the case is already blocked');
      return { kind: 'record', outcome: duplicateOutcome() };
    }
    if (selection.case_action === 'update') {
      // A case that does not say blocked may still have a block of this event behind it (a record that
      // never landed); only this update path pays for the lookup, so other runs make no blocklist request.
      const answer = await call(ctx, 'GET', `/blocklist/${encodeURIComponent(alert.source_ip)}`);
      const earlier = earlierBlockOutcome(answer.status, answer.body, alert, ctx.now().toISOString());
      if (earlier !== null) {
        ctx.trace('decide', 'duplicate delivery: the address is already blocked for this event');
        return { kind: 'record', outcome: earlier };
      }
    }
    ctx.trace('decide', `confidence ${alert.confidence}: approval requested`);
    return { kind: 'request_approval' };
  },

  async approve(ctx, alert) {
    // The wait exists before the request goes out, so an approver who answers at once finds it.
    const wait = ctx.openApprovalWait(ctx.settings.approvalTimeoutMs);
    try {
      const seconds = ctx.settings.approvalTimeoutMs / 1000;
      await notify(ctx, approvalNotification(alert, seconds, wait.resumeUrl));
    } catch (error) {
      wait.cancel();
      throw error;
    }
    const outcome = await wait.outcome;
    if (outcome.kind === 'cancelled') throw new RunFailed('the run was cancelled while waiting for approval');
    const reading = readApproval(
      outcome.kind === 'resumed',
      outcome.kind === 'resumed' ? outcome.body : null,
    );
    ctx.trace('approve', `${reading.result} (approver ${reading.approver ?? 'none'})`);
    return reading;
  },

  noAction: noActionOutcome,

  async block(ctx, alert, approval) {
    const answer = await call(ctx, 'POST', '/blocklist', blockRequest(alert));
    const made = checkBlock(answer.status, answer.body, alert);
    ctx.trace('block', made.block);
    const lookup = await call(ctx, 'GET', `/blocklist/${encodeURIComponent(alert.source_ip)}`);
    const outcome = verifiedBlockOutcome(
      lookup.status,
      lookup.body,
      alert,
      approval.approver,
      ctx.now().toISOString(),
    );
    ctx.trace('block', `verified: ${alert.source_ip} blocked for this event`);
    return outcome;
  },

  buildRecord(validation, identity, caseAction, outcome) {
    if (!validation.valid) throw new RunFailed('buildRecord: the alert is not valid');
    return buildCaseRecord(validation, identity, caseAction, outcome);
  },

  /**
   * A 5xx (the case connector) does not end the run and repeats nothing before it: the owner is told
   * once, and only this write is resumed once GET /health says the connector is healthy.
   */
  async record(ctx, alert, record) {
    const first = await call(ctx, 'POST', '/cases', record);
    if (caseWritten(first.status)) {
      ctx.trace('record', `case written (${first.status})`);
      return;
    }
    if (!isConnectorFailure(first.status, 0)) throw unexpected(first, 'Case write failed: POST /cases');
    ctx.trace('record', `case write failed with ${first.status}: owner notified, waiting for the connector`);
    await notify(ctx, ownerNotification(alert, first.status, first.body, String(record.result)));
    await waitForHealthyConnector(ctx);
    const second = await call(ctx, 'POST', '/cases', withRecordRetry(record));
    if (!caseWritten(second.status)) throw unexpected(second, 'Case write failed: POST /cases (resumed)');
    ctx.trace('record', 'case written on the second attempt');
  },
};

/** The one validation notification of a stopped run; also used when Enrich stops it. */
async function recordValidationError(
  ctx: RunContext,
  errors: string[],
  eventId: string | null,
): Promise<never> {
  ctx.trace('validate', `rejected: ${errors.join('; ')}`);
  await notify(ctx, validationNotification(errors, eventId));
  throw new StopRun(`Alert rejected: ${errors.join('; ')}`);
}

async function waitForHealthyConnector(ctx: RunContext): Promise<void> {
  for (let attempt = 1; attempt <= ctx.settings.healthPollTries; attempt += 1) {
    const health = await call(ctx, 'GET', '/health');
    if (connectorHealthy(health.status, health.body)) return;
    if (attempt < ctx.settings.healthPollTries) await pause(ctx.settings.healthPollIntervalMs, ctx.signal);
  }
  throw new RunFailed(`the case connector stayed unhealthy for ${ctx.settings.healthPollTries} checks`);
}

/** The response workflow: the nodes in the protocol's order. */
export async function runSuspiciousLogin(
  payload: unknown,
  ctx: RunContext,
  nodes: ResponseNodes = REFERENCE_NODES,
): Promise<void> {
  const validation = nodes.validate(payload);
  if (!validation.valid) return recordValidationError(ctx, validation.errors, validation.event_id);
  const { alert } = validation;
  const identity = await nodes.enrich(ctx, alert);
  const selection = await nodes.lookupCase(ctx, alert);
  const decision = await nodes.decide(ctx, alert, selection);
  let outcome: Outcome;
  if (decision.kind === 'record') outcome = decision.outcome;
  else {
    const approval = await nodes.approve(ctx, alert);
    outcome = approval.approved ? await nodes.block(ctx, alert, approval) : nodes.noAction(approval);
  }
  await nodes.record(ctx, alert, nodes.buildRecord(validation, identity, selection.case_action, outcome));
}

// ---------------------------------------------------------------------------------------------------------
// The rollback workflow: remove the exact entry, verify its absence, record the recovery time.

export interface RollbackNodes {
  /** [Validate] */
  validate(payload: unknown): RollbackTrigger;
  /** [Case lookup, Case found?] the blocked address, or StopRun. */
  lookupCase(ctx: RunContext, eventId: string): Promise<string>;
  /** [Unblock, Unblocked?] whether an entry was removed (false: it was already gone). */
  unblock(ctx: RunContext, ip: string): Promise<boolean>;
  /** [Verify absence, Absent?] */
  verifyAbsence(ctx: RunContext, ip: string): Promise<void>;
  /** [Build rollback record, Record rollback] */
  recordRollback(ctx: RunContext, eventId: string, ip: string, entryRemoved: boolean): Promise<void>;
}

export const ROLLBACK_NODES: RollbackNodes = {
  validate: validateRollbackTrigger,

  async lookupCase(ctx, eventId) {
    const answer = await call(ctx, 'GET', `/cases/${encodeURIComponent(eventId)}`);
    const ip = rollbackSourceIp(answer.status, answer.body);
    if (ip === null) {
      throw new StopRun(
        `Rollback failed: GET /cases/${eventId} answered ${answer.status} (no case with a source_ip)`,
      );
    }
    return ip;
  },

  async unblock(ctx, ip) {
    const removal = await call(ctx, 'DELETE', `/blocklist/${encodeURIComponent(ip)}`);
    // 404 not_blocked: the entry is already gone (expired, or an earlier rollback); absence is what counts.
    if (!unblocked(removal.status, removal.body))
      throw unexpected(removal, 'Rollback failed: DELETE /blocklist');
    ctx.trace('unblock', removal.status === 200 ? `${ip} removed` : `${ip} was not blocked`);
    return removal.status === 200;
  },

  async verifyAbsence(ctx, ip) {
    const lookup = await call(ctx, 'GET', `/blocklist/${encodeURIComponent(ip)}`);
    if (!verifiedAbsent(lookup.status, lookup.body)) {
      throw unexpected(lookup, 'Rollback failed: GET /blocklist still answers');
    }
  },

  async recordRollback(ctx, eventId, ip, entryRemoved) {
    const record = buildRollbackRecord(
      eventId,
      ip,
      entryRemoved,
      ctx.triggeredAt.toISOString(),
      ctx.now().toISOString(),
    );
    ctx.trace('verifyAbsent', `${ip} absent after ${record.rollback.recovery_seconds} s`);
    const answer = await call(ctx, 'POST', '/cases', record);
    if (!caseWritten(answer.status)) throw unexpected(answer, 'POST /cases (rollback)');
    ctx.trace('recordRollback', 'case updated: rolled_back');
  },
};

export async function runRollback(
  payload: unknown,
  ctx: RunContext,
  nodes: RollbackNodes = ROLLBACK_NODES,
): Promise<void> {
  const trigger = nodes.validate(payload);
  if (!trigger.valid || trigger.event_id === null) {
    throw new StopRun(`Rollback rejected: ${trigger.errors.join('; ')}`);
  }
  const ip = await nodes.lookupCase(ctx, trigger.event_id);
  const removed = await nodes.unblock(ctx, ip);
  await nodes.verifyAbsence(ctx, ip);
  await nodes.recordRollback(ctx, trigger.event_id, ip, removed);
}

// ---------------------------------------------------------------------------------------------------------
// Requests to the mock API

async function call(ctx: RunContext, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) {
  ctx.signal.throwIfAborted();
  return ctx.api.request(method, path, body);
}

/** n8n's HTTP Request node without `neverError`: a notification that is not accepted fails the run. */
async function notify(ctx: RunContext, notification: Json): Promise<void> {
  const answer = await call(ctx, 'POST', '/notify', notification);
  if (answer.status < 200 || answer.status >= 300) throw unexpected(answer, 'POST /notify');
}

function unexpected(answer: ApiAnswer, what: string): RunFailed {
  return new RunFailed(`${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
}

/** A wait that a cancelled run does not sit out. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
