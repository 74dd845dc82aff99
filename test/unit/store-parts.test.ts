import { describe, expect, it } from 'vitest';
import { parseCidrList } from '../../app/http/cidr.js';
import { rawPath } from '../../app/http/journal.js';
import { Ring } from '../../app/store/ring.js';

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

describe('parseCidrList', () => {
  it('matches IPv4 and IPv6 ranges and refuses missing addresses', () => {
    const list = parseCidrList(['10.1.0.0/16', '2001:db8::/32']);
    expect(list?.allows('10.1.200.3')).toBe(true);
    expect(list?.allows('10.2.0.1')).toBe(false);
    expect(list?.allows('2001:db8:1::5')).toBe(true);
    expect(list?.allows(undefined)).toBe(false);
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
