/**
 * The compiled check of the POST bodies (app/api/schemas/fast-parse.ts) is the same contract as zod's parse:
 * for every body, it either answers what zod answers (the same JSON, keys in the same order) or leaves
 * the body to zod; it never accepts a body zod refuses. A table of edges and generated JSON bodies.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { BlockRequestSchema } from '../../app/api/schemas/blocklist.js';
import { CaseWriteSchema } from '../../app/api/schemas/case.js';
import { compileFastParse } from '../../app/api/schemas/fast-parse.js';
import { NotifyRequestSchema } from '../../app/api/schemas/notification.js';
import { EVENT_ID_MAX_LENGTH } from '../../app/workflow/constants.js';
import { caseRecord } from '../../bench/fixtures.js';

/** What zod answers and what the compiled check answers, for one body as JSON.parse makes it. */
function both(schema: z.ZodType, text: string) {
  const fast = compileFastParse(schema);
  if (fast === undefined) throw new Error('the schema did not compile');
  const body = JSON.parse(text);
  const zod = schema.safeParse(body);
  return { zod: zod.success ? JSON.stringify(zod.data) : undefined, fast: fast(body), body };
}

function expectSameContract(schema: z.ZodType, text: string): 'fast' | 'zod' {
  const { zod, fast } = both(schema, text);
  if (fast === undefined) return 'zod';
  expect(zod, `zod refuses ${text} but the compiled check accepts it`).toBeDefined();
  expect(JSON.stringify(fast), text).toBe(zod);
  return 'fast';
}

const long = 'x'.repeat(EVENT_ID_MAX_LENGTH);
/** Bodies of a case write, and whether the compiled check must answer them itself. */
const CASES: [string, 'fast' | 'zod'][] = [
  [JSON.stringify(caseRecord('evt-1')), 'fast'],
  ['{"event_id":"e"}', 'fast'],
  [`{"event_id":"${long}"}`, 'fast'],
  [`{"event_id":"${long}x"}`, 'zod'],
  ['{"event_id":""}', 'zod'],
  ['{"event_id":7}', 'zod'],
  ['{"event_id":null}', 'zod'],
  ['{}', 'zod'],
  ['{"result":"blocked"}', 'zod'],
  // zod puts its own fields first, then the rest in the order sent
  ['{"zz":1,"result":"x","event_id":"e","approver":null,"a":[1,{"b":2}]}', 'fast'],
  ['{"event_id":"e","approver":null,"evidence":null,"verification":null}', 'fast'],
  ['{"event_id":"e","approver":1}', 'zod'],
  ['{"event_id":"e","result":null}', 'zod'],
  ['{"event_id":"e","final_action":false}', 'zod'],
  ['{"event_id":"e","evidence":[]}', 'zod'],
  ['{"event_id":"e","evidence":"text"}', 'zod'],
  ['{"event_id":"e","evidence":{"10":1,"2":2,"a":{"__proto__":1}}}', 'fast'],
  // zod drops a record's `__proto__`, and reads its `constructor` in its plain-object test
  ['{"event_id":"e","evidence":{"__proto__":{"x":1},"a":1}}', 'zod'],
  ['{"event_id":"e","rollback":{"constructor":{"prototype":1}}}', 'zod'],
  ['{"event_id":"e","rollback":{"constructor":1}}', 'zod'],
  // a top-level `__proto__` is dropped by both
  ['{"event_id":"e","__proto__":{"a":1},"b":2}', 'fast'],
  ['{"event_id":"e","created_at":"x","revision":"y","id":3}', 'fast'],
];

describe('the compiled check of a POST body', () => {
  it.each(CASES)('answers %s as zod does (%s)', (text, path) => {
    expect(expectSameContract(CaseWriteSchema, text)).toBe(path);
  });

  it('answers generated bodies as zod does', () => {
    const field = fc.oneof(
      fc.string({ maxLength: 3 }),
      fc.constantFrom(
        'event_id',
        'evidence',
        'approver',
        'result',
        'verification',
        '__proto__',
        'constructor',
      ),
    );
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constant(null),
        fc.boolean(),
        fc.integer(),
        fc.string({ maxLength: 4 }),
        fc.array(tie('value'), { maxLength: 2 }),
        fc.dictionary(field, tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    const body = fc.dictionary(field, json, { maxKeys: 6 });
    const withId = fc
      .tuple(fc.string({ maxLength: 3 }), body)
      .map(([id, rest]) => ({ event_id: id, ...rest }));
    let fast = 0;
    fc.assert(
      fc.property(fc.oneof(body, withId), (value) => {
        if (expectSameContract(CaseWriteSchema, JSON.stringify(value)) === 'fast') fast += 1;
      }),
      { numRuns: 2000 },
    );
    // The generator reaches both paths, so the property says something about each.
    expect(fast).toBeGreaterThan(100);
  });

  it('compiles the open write bodies and leaves the others to zod', () => {
    expect(compileFastParse(CaseWriteSchema)).toBeDefined();
    expect(compileFastParse(NotifyRequestSchema)).toBeDefined();
    // a closed body and address formats are zod's alone
    expect(compileFastParse(BlockRequestSchema)).toBeUndefined();
  });

  it('answers notification bodies as zod does', () => {
    for (const text of [
      '{"message":"m"}',
      '{"message":""}',
      '{"message":"m","event_id":null,"x":1,"channel":"approval"}',
      '{"message":"m","severity":3}',
      '{"subject":"s"}',
    ])
      expectSameContract(NotifyRequestSchema, text);
  });
});
