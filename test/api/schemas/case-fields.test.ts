/** The case store copies a write's fields without the service-owned ones, `__proto__` kept as a field. */
import { describe, expect, it } from 'vitest';
import type { Case, CaseWrite } from '../../../app/api/schemas/case.js';
import { CaseStore } from '../../../app/api/store/cases.js';

function upsert(store: CaseStore, write: CaseWrite): Case {
  const outcome = store.upsertCase(write, 0);
  if (!outcome.ok) expect.fail(outcome.refusal.kind);
  return outcome.value.case;
}

describe('CaseStore field copy', () => {
  it('keeps an own __proto__ key as a plain field and never changes a prototype', () => {
    const store = new CaseStore(10);
    const write = JSON.parse('{"event_id":"e","__proto__":{"polluted":true},"x":1}');
    const record = upsert(store, write);
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.hasOwn(record, '__proto__')).toBe(true);
    expect(JSON.parse(JSON.stringify(record))).toMatchObject({ x: 1 });
    expect(JSON.stringify(record)).toContain('"__proto__":{"polluted":true}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('drops the service-owned fields a client sends, and keeps the order of the rest', () => {
    const store = new CaseStore(10);
    const write = { event_id: 'e', revision: 99, b: 1, created_at: 'x', a: 2 } as never;
    const record = upsert(store, write);
    expect(Object.keys(record)).toEqual(['event_id', 'b', 'a', 'created_at', 'updated_at', 'revision']);
    expect(record.revision).toBe(1);
  });
});
