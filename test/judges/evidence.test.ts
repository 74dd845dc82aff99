import { describe, expect, it } from 'vitest';
import { dig, mentions, saysInText, someKey } from '../../app/judges/evidence.js';
import { fillTemplate } from '../../app/judges/mapping.js';

describe('name-agnostic questions about a case', () => {
  const record = { evidence: { identity: { user: 'lab-admin', role: 'administrator' } }, Approved_By: 'Ann' };

  it('mentions: a key or a substring of a string, case-insensitive', () => {
    expect(mentions(record, 'ann')).toBe(true);
    expect(mentions(record, 'approved_by')).toBe(true);
    expect(mentions(record, 'bob')).toBe(false);
  });

  it('someKey and dig', () => {
    expect(someKey(record, /^role$/, (v) => v === 'administrator')).toBe(true);
    expect(someKey(record, /^role$/, (v) => v === 'analyst')).toBe(false);
    expect(dig(record, 'evidence.identity.role')).toBe('administrator');
    expect(dig(record, 'evidence.identity.missing')).toBeUndefined();
    expect(dig(record, 'evidence.toString')).toBeUndefined();
  });

  it('fillTemplate fills {names} in every string, leaves unknown ones', () => {
    expect(fillTemplate({ a: ['{approver}', 1], b: '{other}' }, { approver: 'Ann' })).toEqual({
      a: ['Ann', 1],
      b: '{other}',
    });
  });
});

describe('a validation error names the field in its text, not as a copied key', () => {
  it('saysInText reads values only', () => {
    expect(saysInText({ errors: ['source_ip is required'] }, 'source_ip')).toBe(true);
    expect(saysInText({ missing: ['SOURCE_IP'] }, 'source_ip')).toBe(true);
    expect(saysInText({ alert: { source_ip: '' } }, 'source_ip')).toBe(false);
  });
});
