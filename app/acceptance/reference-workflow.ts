/**
 * The "Suspicious Login Response" and "Suspicious Login Rollback" workflows as plain TypeScript: the
 * executable form of docs/workflow-protocol.md. One function per node of the seed's table (validate,
 * enrich, lookupCase, decide, approve, block, record); every effect is a real HTTP request to the mock
 * API, so the acceptance runner can judge this and the n8n export by the same destination state.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import {
  AlreadyBlockedSchema,
  type BlockEntry,
  BlockEntrySchema,
  BlockLookupSchema,
  type CaseRecord,
  CaseSchema,
  HealthSchema,
  type Identity,
  IdentitySchema,
} from './api-schemas.js';
import type { ApiResponse, ApiTransport } from './transport.js';

export const APPROVAL_THRESHOLD = 80;
export const BLOCK_EXPIRES_MINUTES = 10;
export const RESPONSE_WORKFLOW = 'Suspicious Login Response';
export const ROLLBACK_WORKFLOW = 'Suspicious Login Rollback';

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
  readonly api: ApiTransport;
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
  /** Record's resume after a connector failure: the protocol says 30 tries, 2 s apart. */
  healthPollTries: number;
  healthPollIntervalMs: number;
}

export const DEFAULT_SETTINGS: WorkflowSettings = {
  approvalTimeoutMs: 120_000,
  healthPollTries: 30,
  healthPollIntervalMs: 2_000,
};

/** The run stopped on purpose (n8n: Stop and Error), after recording why. */
export class StopRun extends Error {
  override name = 'StopRun';
}

/** The mock API answered something the protocol has no branch for; the run ends with an error. */
export class RunFailed extends Error {
  override name = 'RunFailed';
}

// ---------------------------------------------------------------------------------------------------------
// 1. Validate

const AlertSchema = z.object({
  // The mock API keys cases by event_id of 1-128 characters: a longer one could never be recorded.
  event_id: z.string().min(1).max(128),
  event_type: z.string().min(1),
  user: z.string().min(1),
  source_ip: z.string().refine((value) => isIP(value) !== 0),
  confidence: z.int().min(0).max(100),
  environment: z.literal('training'),
  successful_login: z.boolean(),
});
export type Alert = z.infer<typeof AlertSchema> & { failed_attempts: number | null };

/** How each field must look, for the error sentences of the validation notification. */
const FIELD_RULES: Record<keyof z.infer<typeof AlertSchema>, string> = {
  event_id: 'a non-empty string of at most 128 characters',
  event_type: 'a non-empty string',
  user: 'a non-empty string',
  source_ip: 'an IP address',
  confidence: 'an integer from 0 to 100',
  environment: '"training"',
  successful_login: 'a boolean',
};

const RecordSchema = z.record(z.string(), z.unknown());

export type Validation = { ok: true; alert: Alert } | { ok: false; errors: string[]; eventId: string | null };

export function validate(payload: unknown): Validation {
  const body = RecordSchema.safeParse(payload);
  if (!body.success) return { ok: false, errors: ['the alert must be a JSON object'], eventId: null };
  const fields = body.data;
  const eventId = typeof fields.event_id === 'string' ? fields.event_id : null;
  const parsed = AlertSchema.safeParse(fields);
  if (!parsed.success) {
    const errors: string[] = [];
    for (const [field, rule] of Object.entries(FIELD_RULES)) {
      if (!parsed.error.issues.some((issue) => issue.path[0] === field)) continue;
      const value = fields[field];
      errors.push(
        value === undefined || value === null ? `${field} is required` : `${field} must be ${rule}`,
      );
    }
    return { ok: false, errors, eventId };
  }
  // failed_attempts is evidence, not a condition of the run: kept when it is a count, otherwise null.
  const attempts = z.int().min(0).safeParse(fields.failed_attempts);
  return { ok: true, alert: { ...parsed.data, failed_attempts: attempts.success ? attempts.data : null } };
}

/** The one validation notification of a stopped run; also used when Enrich stops it. */
async function recordValidationError(
  ctx: RunContext,
  errors: string[],
  eventId: string | null,
): Promise<never> {
  ctx.trace('validate', `rejected: ${errors.join('; ')}`);
  await notify(ctx, {
    channel: 'validation',
    recipient: 'soc-analyst',
    subject: 'Alert rejected by validation',
    message: errors.join('; '),
    event_id: eventId,
    severity: 'low',
    errors,
  });
  throw new StopRun(errors.join('; '));
}

// ---------------------------------------------------------------------------------------------------------
// 2. Enrich

export async function enrich(ctx: RunContext, alert: Alert): Promise<Identity> {
  const answer = await call(ctx, 'GET', `/identity/${encodeURIComponent(alert.user)}`);
  if (answer.status === 404) return recordValidationError(ctx, ['identity not found'], alert.event_id);
  const identity = parseAnswer(answer, 200, IdentitySchema, 'GET /identity');
  // The seed: the returned identity must belong to the triggering user.
  if (identity.user !== alert.user) return recordValidationError(ctx, ['identity mismatch'], alert.event_id);
  ctx.trace('enrich', `identity ${identity.user}`);
  return identity;
}

// ---------------------------------------------------------------------------------------------------------
// 3. Case lookup

export type CaseLookup = { action: 'create' } | { action: 'update'; existing: CaseRecord };

export async function lookupCase(ctx: RunContext, eventId: string): Promise<CaseLookup> {
  const answer = await call(ctx, 'GET', `/cases/${encodeURIComponent(eventId)}`);
  if (answer.status === 404) {
    ctx.trace('lookupCase', 'no case: create');
    return { action: 'create' };
  }
  const existing = parseAnswer(answer, 200, CaseSchema, 'GET /cases');
  ctx.trace('lookupCase', `case exists (final_action ${existing.final_action ?? 'unset'}): update`);
  return { action: 'update', existing };
}

// ---------------------------------------------------------------------------------------------------------
// 4. Decide

export type Decision =
  | { kind: 'below_threshold' }
  | { kind: 'request_approval' }
  /** An earlier delivery already blocked: record the duplicate, ask nobody, block nothing. */
  | { kind: 'duplicate'; finalAction: string; block: BlockResult | null };

export async function decide(ctx: RunContext, alert: Alert, lookup: CaseLookup): Promise<Decision> {
  if (alert.confidence < APPROVAL_THRESHOLD) {
    ctx.trace('decide', `confidence ${alert.confidence} < ${APPROVAL_THRESHOLD}: no containment`);
    return { kind: 'below_threshold' };
  }
  if (lookup.action === 'update') {
    if (lookup.existing.final_action === 'blocked') {
      ctx.trace('decide', 'duplicate delivery: the case is already blocked');
      return { kind: 'duplicate', finalAction: 'blocked', block: null };
    }
    // A case that does not say blocked may still have a block of this event behind it (a record that
    // never landed); only this update path pays for the lookup, so other runs make no blocklist request.
    const entry = await findBlock(ctx, alert.source_ip);
    if (entry !== null && entry.event_id === alert.event_id) {
      ctx.trace('decide', 'duplicate delivery: the address is already blocked for this event');
      return { kind: 'duplicate', finalAction: 'blocked', block: { entry, verifiedAt: ctx.now() } };
    }
  }
  ctx.trace('decide', `confidence ${alert.confidence} >= ${APPROVAL_THRESHOLD}: approval requested`);
  return { kind: 'request_approval' };
}

// ---------------------------------------------------------------------------------------------------------
// 5. Approve

export type Approval =
  | { approved: true; approver: string }
  | { approved: false; approver: string | null; result: 'approval_rejected' | 'approval_timed_out' };

const ResumeBodySchema = z.looseObject({ decision: z.unknown(), approver: z.unknown() });

export async function approve(ctx: RunContext, alert: Alert): Promise<Approval> {
  // The wait exists before the request goes out, so an approver who answers at once finds it.
  const wait = ctx.openApprovalWait(ctx.settings.approvalTimeoutMs);
  try {
    await notify(ctx, {
      channel: 'approval',
      recipient: 'soc-approver',
      subject: `Approval requested: block ${alert.source_ip}`,
      message:
        `Suspicious login of ${alert.user} from ${alert.source_ip} (confidence ${alert.confidence}). ` +
        `Approve a ${BLOCK_EXPIRES_MINUTES}-minute block by POSTing {"decision":"approve","approver":"<name>"} ` +
        'to resume_url; anything else, or no answer in time, blocks nothing.',
      event_id: alert.event_id,
      severity: 'high',
      decision_requested: 'block_source_ip',
      source_ip: alert.source_ip,
      expires_minutes: BLOCK_EXPIRES_MINUTES,
      resume_url: wait.resumeUrl,
    });
  } catch (error) {
    wait.cancel();
    throw error;
  }
  const outcome = await wait.outcome;
  if (outcome.kind === 'cancelled') throw new RunFailed('the run was cancelled while waiting for approval');
  if (outcome.kind === 'timed_out') {
    ctx.trace('approve', 'no answer within the time limit');
    return { approved: false, approver: null, result: 'approval_timed_out' };
  }
  const body = ResumeBodySchema.safeParse(outcome.body);
  const decision = body.success ? body.data.decision : undefined;
  const named = body.success && typeof body.data.approver === 'string' ? body.data.approver.trim() : '';
  const approver = named === '' ? null : named;
  if (decision === 'approve' && approver !== null) {
    ctx.trace('approve', `approved by ${approver}`);
    return { approved: true, approver };
  }
  ctx.trace('approve', `not approved (decision ${JSON.stringify(decision)}, approver ${approver ?? 'none'})`);
  return { approved: false, approver, result: 'approval_rejected' };
}

// ---------------------------------------------------------------------------------------------------------
// 6. Block

export interface BlockResult {
  entry: BlockEntry;
  verifiedAt: Date;
}

export async function block(ctx: RunContext, alert: Alert): Promise<BlockResult> {
  const answer = await call(ctx, 'POST', '/blocklist', {
    ip: alert.source_ip,
    event_id: alert.event_id,
    expires_minutes: BLOCK_EXPIRES_MINUTES,
  });
  if (answer.status === 409) {
    // Made by an earlier delivery of this event: it counts as the block and is not repeated.
    const conflict = AlreadyBlockedSchema.safeParse(answer.body);
    if (!conflict.success || conflict.data.entry.event_id !== alert.event_id) {
      throw new RunFailed(`${alert.source_ip} is already blocked for another event`);
    }
    ctx.trace('block', 'already blocked by an earlier delivery of this event');
  } else {
    parseAnswer(answer, 201, BlockEntrySchema, 'POST /blocklist');
  }
  const entry = await findBlock(ctx, alert.source_ip);
  if (entry === null || entry.event_id !== alert.event_id || entry.ip !== alert.source_ip) {
    throw new RunFailed(
      `verification failed: GET /blocklist/${alert.source_ip} shows no entry of this event`,
    );
  }
  ctx.trace('block', `verified: ${entry.ip} blocked until ${entry.expires_at}`);
  return { entry, verifiedAt: ctx.now() };
}

// ---------------------------------------------------------------------------------------------------------
// 7. Record

export type CaseWrite = Record<string, unknown> & { event_id: string };

/**
 * Writes the case. A 5xx (the case connector) does not end the run and repeats nothing before it: the
 * owner is told once, and only this write is resumed once GET /health says the connector is healthy.
 */
export async function record(ctx: RunContext, write: CaseWrite): Promise<void> {
  const first = await call(ctx, 'POST', '/cases', write);
  if (first.status === 200 || first.status === 201) {
    ctx.trace('record', `case ${first.status === 201 ? 'created' : 'updated'}`);
    return;
  }
  if (first.status < 500) throw unexpected(first, 'POST /cases');
  ctx.trace('record', `case write failed with ${first.status}: owner notified, waiting for the connector`);
  await notify(ctx, {
    channel: 'owner',
    recipient: 'case-owner',
    subject: `Case write failed: ${write.event_id}`,
    message: `The case write for ${write.event_id} failed with status ${first.status}. Earlier steps are done and are not repeated; the record is written again once the case connector is healthy.`,
    event_id: write.event_id,
    severity: 'high',
    pending: 'record',
  });
  await waitForHealthyConnector(ctx);
  const second = await call(ctx, 'POST', '/cases', {
    ...write,
    record_retry: { attempts: 2, owner_notified: true },
  });
  if (second.status !== 200 && second.status !== 201) throw unexpected(second, 'POST /cases (resumed)');
  ctx.trace('record', 'case written on the second attempt');
}

async function waitForHealthyConnector(ctx: RunContext): Promise<void> {
  for (let attempt = 1; attempt <= ctx.settings.healthPollTries; attempt += 1) {
    const health = HealthSchema.safeParse((await call(ctx, 'GET', '/health')).body);
    if (health.success && health.data.case_mode === 'healthy') return;
    if (attempt < ctx.settings.healthPollTries) await pause(ctx.settings.healthPollIntervalMs, ctx.signal);
  }
  throw new RunFailed(`the case connector stayed unhealthy for ${ctx.settings.healthPollTries} checks`);
}

/** The case record of the protocol's step 7, from what the earlier nodes found. */
export function caseRecord(
  alert: Alert,
  identity: Identity,
  lookup: CaseLookup,
  outcome:
    | { result: 'below_threshold' }
    | { result: 'approval_rejected' | 'approval_timed_out'; approver: string | null }
    | { result: 'blocked'; approver: string; block: BlockResult }
    | { result: 'duplicate_delivery'; finalAction: string; block: BlockResult | null },
): CaseWrite {
  const { failed_attempts, ...mapped } = alert;
  const base = {
    ...mapped,
    evidence: { alert: { ...mapped, failed_attempts }, identity },
    case_action: lookup.action,
  };
  switch (outcome.result) {
    case 'below_threshold':
      return {
        ...base,
        ...noBlock(),
        approver: null,
        decision: 'below_threshold',
        result: 'below_threshold',
      };
    case 'approval_rejected':
    case 'approval_timed_out':
      return {
        ...base,
        ...noBlock(),
        approver: outcome.approver,
        decision: 'approval_requested',
        result: outcome.result,
      };
    case 'blocked':
      return {
        ...base,
        ...blockedFields(alert, outcome.block.entry, outcome.block.verifiedAt),
        approver: outcome.approver,
        decision: 'approval_requested',
        result: 'blocked',
      };
    case 'duplicate_delivery':
      // Approver, verification, expiry and rollback of the first run stay: an update replaces only the
      // fields it sends. Only a block found without a case record brings its own block fields.
      return {
        ...base,
        ...(outcome.block === null
          ? {}
          : blockedFields(alert, outcome.block.entry, outcome.block.verifiedAt)),
        result: 'duplicate_delivery',
        final_action: outcome.finalAction,
      };
  }
}

function noBlock() {
  return {
    final_action: 'none',
    verification: { method: 'none', blocked: false },
    expiry: null,
    rollback: null,
  };
}

function blockedFields(alert: Alert, entry: BlockEntry, verifiedAt: Date) {
  return {
    final_action: 'blocked',
    verification: {
      method: `GET /blocklist/${alert.source_ip}`,
      blocked: true,
      entry_event_id: entry.event_id,
      verified_at: verifiedAt.toISOString(),
    },
    expiry: { expires_minutes: BLOCK_EXPIRES_MINUTES, expires_at: entry.expires_at },
    rollback: {
      method: `DELETE /blocklist/${alert.source_ip}`,
      workflow: ROLLBACK_WORKFLOW,
      status: 'available',
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// The response workflow: the nodes in the seed's order.

export async function runSuspiciousLogin(payload: unknown, ctx: RunContext): Promise<void> {
  const validation = validate(payload);
  if (!validation.ok) return recordValidationError(ctx, validation.errors, validation.eventId);
  const alert = validation.alert;
  const identity = await enrich(ctx, alert);
  const lookup = await lookupCase(ctx, alert.event_id);
  const decision = await decide(ctx, alert, lookup);
  if (decision.kind === 'below_threshold') {
    return record(ctx, caseRecord(alert, identity, lookup, { result: 'below_threshold' }));
  }
  if (decision.kind === 'duplicate') {
    const { finalAction, block: earlier } = decision;
    return record(
      ctx,
      caseRecord(alert, identity, lookup, { result: 'duplicate_delivery', finalAction, block: earlier }),
    );
  }
  const approval = await approve(ctx, alert);
  if (!approval.approved) {
    return record(ctx, caseRecord(alert, identity, lookup, approval));
  }
  const blocked = await block(ctx, alert);
  return record(
    ctx,
    caseRecord(alert, identity, lookup, { result: 'blocked', approver: approval.approver, block: blocked }),
  );
}

// ---------------------------------------------------------------------------------------------------------
// The rollback workflow: remove the exact entry, verify its absence, record the recovery time.

const RollbackPayloadSchema = z.looseObject({ event_id: z.string().min(1) });

export async function runRollback(payload: unknown, ctx: RunContext): Promise<void> {
  const trigger = RollbackPayloadSchema.safeParse(payload);
  if (!trigger.success) throw new StopRun('rollback: event_id is required');
  const eventId = trigger.data.event_id;
  const lookup = await lookupCase(ctx, eventId);
  if (lookup.action === 'create') throw new StopRun(`rollback: no case for ${eventId}`);
  const ip = lookup.existing.source_ip;
  if (ip === undefined || isIP(ip) === 0)
    throw new RunFailed(`rollback: the case of ${eventId} names no source_ip`);

  const removal = await call(ctx, 'DELETE', `/blocklist/${encodeURIComponent(ip)}`);
  // 404 not_blocked: the entry is already gone (expired, or an earlier rollback); absence is what counts.
  if (removal.status !== 200 && removal.status !== 404) throw unexpected(removal, 'DELETE /blocklist');
  ctx.trace('unblock', removal.status === 200 ? `${ip} removed` : `${ip} was not blocked`);

  if ((await findBlock(ctx, ip)) !== null) throw new RunFailed(`rollback: ${ip} is still blocked`);
  const completedAt = ctx.now();
  const recoverySeconds = (completedAt.getTime() - ctx.triggeredAt.getTime()) / 1000;
  ctx.trace('verifyAbsent', `${ip} absent after ${recoverySeconds} s`);

  const answer = await call(ctx, 'POST', '/cases', {
    event_id: eventId,
    rollback: {
      method: `DELETE /blocklist/${ip}`,
      status: 'completed',
      verified_absent: true,
      requested_at: ctx.triggeredAt.toISOString(),
      completed_at: completedAt.toISOString(),
      recovery_seconds: recoverySeconds,
    },
    final_action: 'rolled_back',
  });
  if (answer.status !== 200 && answer.status !== 201) throw unexpected(answer, 'POST /cases (rollback)');
  ctx.trace('recordRollback', 'case updated: rolled_back');
}

// ---------------------------------------------------------------------------------------------------------
// Requests to the mock API

async function call(ctx: RunContext, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) {
  ctx.signal.throwIfAborted();
  return ctx.api.request(method, path, body);
}

async function notify(ctx: RunContext, notification: Record<string, unknown>): Promise<void> {
  const answer = await call(ctx, 'POST', '/notify', notification);
  if (answer.status !== 202 && answer.status !== 200 && answer.status !== 201)
    throw unexpected(answer, 'POST /notify');
}

/** GET /blocklist/<ip>: the active entry, or null when the address is not blocked. */
async function findBlock(ctx: RunContext, ip: string): Promise<BlockEntry | null> {
  const lookup = parseAnswer(
    await call(ctx, 'GET', `/blocklist/${encodeURIComponent(ip)}`),
    200,
    BlockLookupSchema,
    'GET /blocklist',
  );
  if (!lookup.blocked) return null;
  if (lookup.entry === undefined) throw new RunFailed(`GET /blocklist/${ip} says blocked but shows no entry`);
  return lookup.entry;
}

function parseAnswer<T>(answer: ApiResponse, status: number, schema: z.ZodType<T>, what: string): T {
  if (answer.status !== status) throw unexpected(answer, what);
  const parsed = schema.safeParse(answer.body);
  if (!parsed.success) throw new RunFailed(`${what}: unexpected answer: ${parsed.error.message}`);
  return parsed.data;
}

function unexpected(answer: ApiResponse, what: string): RunFailed {
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
