/**
 * The benchmark's records are what the workflow writes: the case equals the one the workflow's decisions
 * (app/workflow/decisions.ts) build for a blocked outcome, field for field, and the service accepts both
 * records, the largest case included.
 */
import { describe, expect, it } from 'vitest';
import { findIdentity } from '../../app/api/store/identities.js';
import { buildCaseRecord, validateAlert, verifiedBlockOutcome } from '../../app/workflow/decisions.js';
import { alert, approvalNotification, caseRecord, largestCase } from '../../bench/fixtures.js';
import { makeTestApp } from '../helpers/test-app.js';

describe('bench/fixtures.ts', () => {
  it('writes the case the reference workflow writes for a blocked outcome', () => {
    const validation = validateAlert(alert('evt-7'));
    if (!validation.valid) expect.fail(validation.errors.join('; '));
    const identity = findIdentity('lab-admin');
    if (!identity) expect.fail('lab-admin is missing');
    const entry = {
      ip: '203.0.113.66',
      event_id: 'evt-7',
      expires_minutes: 10,
      created_at: '2026-03-01T08:55:05.000Z',
      expires_at: '2026-03-01T09:10:05.000Z',
    };
    const outcome = verifiedBlockOutcome(
      200,
      { blocked: true, entry },
      validation.alert,
      'soc-lead',
      '2026-03-01T09:00:06.000Z',
    );
    const reference = buildCaseRecord(validation, { ...identity }, 'create', outcome);
    expect(caseRecord('evt-7')).toEqual(reference);
  });

  it('is accepted by the service: a workflow case, an approval notification, the largest case', async () => {
    const t = makeTestApp();
    expect((await t.post('/cases', caseRecord('evt-1'))).status).toBe(201);
    expect((await t.post('/notify', approvalNotification('evt-1'))).status).toBe(202);
    const largest = largestCase('evt-2');
    expect(JSON.stringify(largest).length).toBeGreaterThan(60_000);
    expect((await t.post('/cases', largest)).status).toBe(201);
    expect(JSON.stringify(t.store.cases.find('evt-2')).length).toBeLessThanOrEqual(64 * 1024);
  });
});
