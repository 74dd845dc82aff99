/** The log line is built by hand for speed; it must be exactly what JSON.stringify of its fields gives. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { logLine } from '../../../app/api/http/pipeline.js';
import { fuzzParameters } from '../../fuzz/arbitraries.js';

const expected = (time: string, method: string, path: string, status: number, ms: number) =>
  JSON.stringify({ time, method, path, status, duration_ms: Math.round(ms * 1000) / 1000 });

describe('logLine', () => {
  it.each([
    ['GET', '/health', 200, 0.123456],
    ['POST', '/cases/a"b\\c', 422, 12],
    ['M-SEARCH', '/\u0000\u001f\u2028\ud83d\ude00', 404, 0],
    ['GET', '/%22', 500, 1e-7],
  ])('%s %j %i %f is JSON.stringify of its fields', (method, path, status, ms) => {
    const time = '2026-03-01T09:00:00.000Z';
    expect(logLine(time, method, path, status, ms)).toBe(expected(time, method, path, status, ms));
  });

  it('equals JSON.stringify for any method, path, status and duration', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string({ unit: 'binary' }),
        fc.integer({ min: 100, max: 599 }),
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        (method, path, status, ms) => {
          const time = new Date(0).toISOString();
          expect(logLine(time, method, path, status, ms)).toBe(expected(time, method, path, status, ms));
        },
      ),
      fuzzParameters(300),
    );
  });

  it('is caught when it drifts (a mutated copy drops the escaping)', () => {
    const broken = (time: string, method: string, path: string, status: number, ms: number) =>
      `{"time":"${time}","method":"${method}","path":"${path}","status":${status},"duration_ms":${Math.round(ms * 1000) / 1000}}`;
    const time = new Date(0).toISOString();
    expect(broken(time, 'GET', '/a"b', 200, 1)).not.toBe(expected(time, 'GET', '/a"b', 200, 1));
  });
});
