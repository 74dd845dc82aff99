/** The decisions' own edges, where the scenario table (./scenarios.ts) cannot reach. */
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { EVENT_ID_MAX_LENGTH } from '../../app/workflow/constants.js';
import {
  buildRollbackRecord,
  isIpAddress,
  readApproval,
  validateAlert,
  validateRollbackTrigger,
} from '../../app/workflow/decisions.js';

describe('isIpAddress', () => {
  const addresses = [
    '203.0.113.66',
    '0.0.0.0',
    '255.255.255.255',
    '256.0.0.1',
    '1.2.3',
    '01.2.3.4',
    '::',
    '::1',
    '2001:db8::1',
    '2001:0db8:0000:0000:0000:0000:0000:0001',
    '1:2:3:4:5:6:7::',
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    '::ffff:203.0.113.66',
    '::ffff:203.0.113.256',
    '12345::',
    'g::1',
    ' 203.0.113.66',
    '',
  ];
  it.each(addresses)('%j: as node:net isIP says', (a) => {
    expect(isIpAddress(a)).toBe(isIP(a) !== 0);
  });

  it('refuses a zone index, which node:net accepts (the mock API stores the address as sent)', () => {
    expect(isIP('fe80::1%eth0')).toBe(6);
    expect(isIpAddress('fe80::1%eth0')).toBe(false);
  });
});

describe('validateAlert', () => {
  it('a blank or empty string is no value, a string of the longest length is one', () => {
    const ok = {
      event_id: 'e'.repeat(EVENT_ID_MAX_LENGTH),
      event_type: 'suspicious_login',
      user: 'lab-admin',
      source_ip: '203.0.113.66',
      confidence: 0,
      environment: 'training',
      successful_login: false,
    };
    expect(validateAlert(ok)).toMatchObject({ valid: true, errors: [], failed_attempts: null });
    expect(validateAlert({ ...ok, user: ' \t' }).errors).toEqual(['user must be a non-empty string']);
    expect(validateAlert({ ...ok, user: '' }).errors).toEqual(['user is required']);
    expect(validateAlert({ ...ok, event_id: `${ok.event_id}e` }).errors).toEqual([
      `event_id must be a non-empty string of at most ${EVENT_ID_MAX_LENGTH} characters`,
    ]);
  });
});

describe('readApproval', () => {
  it('approves only "approve" with a named approver, trimmed', () => {
    expect(readApproval(true, { decision: 'approve', approver: ' ann ' })).toMatchObject({
      approved: true,
      approver: 'ann',
      result: 'blocked',
    });
    expect(readApproval(true, { decision: 'Approve', approver: 'ann' }).result).toBe('approval_rejected');
    expect(readApproval(true, { decision: 'approve' }).result).toBe('approval_rejected');
    expect(readApproval(false, { decision: 'approve', approver: 'ann' })).toMatchObject({
      approved: false,
      approver: null,
      result: 'approval_timed_out',
    });
  });
});

describe('rollback', () => {
  it('recovery_seconds runs from the trigger to the verified absence, to the millisecond', () => {
    const r = buildRollbackRecord(
      'e',
      '203.0.113.66',
      true,
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:01.234Z',
    );
    expect(r.rollback.recovery_seconds).toBe(1.234);
    expect(r.rollback).toMatchObject({ workflow: 'Suspicious Login Rollback', entry_removed: true });
  });

  it('the trigger needs a non-blank event_id of at most the longest length', () => {
    expect(validateRollbackTrigger({ event_id: 'evt-1' })).toEqual({
      valid: true,
      event_id: 'evt-1',
      errors: [],
    });
    for (const bad of [
      {},
      { event_id: ' ' },
      { event_id: 7 },
      { event_id: 'e'.repeat(EVENT_ID_MAX_LENGTH + 1) },
      null,
    ])
      expect(validateRollbackTrigger(bad).valid).toBe(false);
  });
});
