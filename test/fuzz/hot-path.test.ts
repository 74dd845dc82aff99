/** The hot-path shortcuts taken for speed keep their exact meaning. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../app/api/http/errors.js';
import { iso } from '../../app/api/store/clock.js';
import { fuzzParameters } from './arbitraries.js';

describe('hot-path shortcuts', () => {
  it('iso() is Date#toISOString for any sequence of times, repeated or not', () => {
    const time = fc.integer({ min: 0, max: 8_640_000_000_000 });
    fc.assert(
      fc.property(fc.array(fc.oneof(time, fc.constant(0), fc.constant(1)), { maxLength: 20 }), (times) => {
        for (const ms of times) expect(iso(ms)).toBe(new Date(ms).toISOString());
      }),
      fuzzParameters(200),
    );
  });

  it('an ApiError captures no stack, and leaves other errors theirs', () => {
    const limit = Error.stackTraceLimit;
    const refusal = new ApiError('not_found', 'No route.');
    expect(refusal.stack ?? '').not.toMatch(/\n\s+at /);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('a fault').stack).toMatch(/\n\s+at /);
  });
});
