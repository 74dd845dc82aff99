import { describe, expect, it } from 'vitest';
import { rawPath } from '../../../app/api/http/pipeline.js';
import type { BlockHistoryRecord } from '../../../app/api/schemas/blocklist.js';
import { Blocklist } from '../../../app/api/store/blocklist.js';
import { Journal } from '../../../app/api/store/journal.js';
import { Ring, StringPool } from '../../../app/api/store/ring.js';
import { parseCidrList } from '../../../app/service-kit/cidr.js';

describe('Ring', () => {
  it('keeps the newest entries, oldest first', () => {
    const ring = new Ring<number>(3);
    for (let i = 1; i <= 5; i++) ring.push(i);
    expect(ring.toArray()).toEqual([3, 4, 5]);
    expect(ring.size).toBe(3);
    ring.clear();
    expect(ring.toArray()).toEqual([]);
    ring.push(9);
    expect(ring.toArray()).toEqual([9]);
  });
});

/**
 * The journal and the blocklist history keep their entries in columns (app/api/store/ring.ts says why); here
 * they are held to the plain model they replace, an array of the records as built at the time, on a table
 * of operations that wraps the ring, clears it and refills it.
 */
describe('entries kept in columns read back as the records they were', () => {
  const T0 = Date.parse('2026-11-23T10:00:00.000Z');
  const iso = (ms: number) => new Date(ms).toISOString();

  it('the journal: seq, time, method, path and status, oldest first, across wrap-around and clear', () => {
    const journal = new Journal(4);
    const model: ReturnType<Journal['list']> = [];
    let seq = 0;
    const record = (method: string, path: string, status: number, at: number) => {
      journal.record(method, path, status, at);
      model.push({ seq: ++seq, at: iso(at), method, path, status });
      expect(journal.list()).toEqual(model.slice(-4));
    };
    const url = 'http://127.0.0.1:8081/blocklist/203.0.113.66?x=1';
    for (let i = 0; i < 7; i++) record(i % 2 ? 'DELETE' : 'POST', url.slice(21, 44), 200 + i, T0 + i * 1500);
    record('GET', '/identity/caf%C3%A9', 404, T0 + 0.5);
    journal.clear();
    model.length = 0;
    expect(journal.list()).toEqual([]);
    record('PATCH', `/cases/${'x'.repeat(300)}`, 599, T0 + 86_400_000);
    expect(journal.list()[0]?.seq).toBe(9);
  });

  it('the blocklist history: unblocked and expired entries, with their times, oldest first', () => {
    const blocklist = new Blocklist(3);
    const model: BlockHistoryRecord[] = [];
    const ip = '203.0.113.66';
    let now = T0;
    const block = (eventId: string, minutes: number) => {
      const outcome = blocklist.blockAddress({ ip, event_id: eventId, expires_minutes: minutes }, now);
      if (!outcome.ok) throw new Error('not blocked');
      return outcome.value;
    };
    for (let i = 0; i < 5; i++) {
      const entry = block(`evt-${i}`, 1 + i * 14);
      now += 30_001 + i;
      if (i % 2 === 0) {
        blocklist.unblockAddress(ip, now);
        model.push({ ...entry, removed_at: iso(now), removed_reason: 'unblocked' });
      } else {
        now = Date.parse(entry.expires_at) + 1;
        expect(blocklist.count(now)).toBe(0);
        model.push({ ...entry, removed_at: entry.expires_at, removed_reason: 'expired' });
      }
      expect(blocklist.history(now)).toEqual(model.slice(-3));
    }
    blocklist.clear();
    expect(blocklist.history(now)).toEqual([]);
    const last = block('evt-after-clear', 60);
    blocklist.unblockAddress(ip, now + 1);
    expect(blocklist.history(now + 1)).toEqual([
      { ...last, removed_at: iso(now + 1), removed_reason: 'unblocked' },
    ]);
  });

  it('the string pool keeps one copy of each short string, and no more than its bound', () => {
    const pool = new StringPool(2, 8);
    expect(pool.get('/a/b/c/d'.slice(0, 4))).toBe('/a/b');
    expect(pool.get(['/a', '/b'].join(''))).toBe('/a/b');
    expect(pool.size).toBe(1);
    expect(pool.get('/too-long-path')).toBe('/too-long-path');
    expect(pool.size).toBe(1);
    pool.get('/c');
    expect(pool.get('/d')).toBe('/d');
    expect(pool.size).toBe(2);
  });
});

describe('parseCidrList', () => {
  it('matches IPv4 and IPv6 ranges and refuses missing addresses', () => {
    const list = parseCidrList(['10.1.0.0/16', '2001:db8::/32']);
    expect(list?.includes('10.1.200.3')).toBe(true);
    expect(list?.includes('10.2.0.1')).toBe(false);
    expect(list?.includes('2001:db8:1::5')).toBe(true);
    expect(list?.includes(undefined)).toBe(false);
    expect(parseCidrList([])).toBeNull();
    expect(() => parseCidrList(['10.0.0.0/8/1'])).toThrow(/not a CIDR/);
  });
});

describe('rawPath', () => {
  it('keeps the path as sent, without the query', () => {
    expect(rawPath('http://localhost:8081/cases/a%2Fb?x=1')).toBe('/cases/a%2Fb');
    expect(rawPath('http://[::1]:8081/health')).toBe('/health');
    expect(rawPath('http://h')).toBe('/');
  });
});
