/**
 * The console tells a changed state from `now` ticking by comparing the state's JSON without `now`
 * (app/console/feed.ts). Checked on a table: `now` last as the service sends it, `now` second as an
 * older server did, each with and without a record that holds a field named `now` itself. Two reads
 * that differ only in `now` must compare equal, and the record must be left whole. The first-match cut
 * the feed used before `now` moved to the end is shown to fail the same table.
 */
import { describe, expect, it } from 'vitest';
import { withoutNow } from '../../app/console/feed.js';

const RECORD = '{"event_id":"evt-1","now":"2026-01-01T00:00:00.000Z"}';
const TABLE: [string, (now: string) => string][] = [
  ['now last', (now) => `{"case_mode":"healthy","cases":[],"now":"${now}"}`],
  ['now last, a record holding a now', (now) => `{"case_mode":"healthy","cases":[${RECORD}],"now":"${now}"}`],
  ['now second', (now) => `{"case_mode":"healthy","now":"${now}","cases":[]}`],
  [
    'now second, a record holding a now',
    (now) => `{"case_mode":"healthy","now":"${now}","cases":[${RECORD}]}`,
  ],
];
const A = '2026-11-23T12:00:00.000Z';
const B = '2026-11-23T12:00:01.500Z';

type Cut = (body: string, now: string) => string;
/** What is wrong with a cut on one row: an empty list when it is right. */
function problems(cut: Cut, body: (now: string) => string): string[] {
  const out: string[] = [];
  if (cut(body(A), A) !== cut(body(B), B)) out.push('two reads differing only in now differ');
  if (body(A).includes(RECORD) && !cut(body(A), A).includes(RECORD)) out.push('the record was cut');
  if (cut(body(A), A).includes(A)) out.push('the state’s now is still there');
  return out;
}
/** What the feed did before: cut the first `"now":"..."`, wherever it is. */
const firstMatch: Cut = (body) => body.replace(/"now":"[^"]*"/, '');

describe('withoutNow', () => {
  it.each(TABLE)('cuts the state’s own now and nothing else (%s)', (_name, body) => {
    expect(problems(withoutNow, body)).toEqual([]);
  });

  it('tells a changed record from now ticking', () => {
    const changed = (now: string) => `{"cases":[${RECORD.replace('evt-1', 'evt-2')}],"now":"${now}"}`;
    expect(withoutNow(changed(A), A)).not.toBe(withoutNow(`{"cases":[${RECORD}],"now":"${A}"}`, A));
  });

  it('a first-match cut fails the table where a record holds a now and the state’s is last', () => {
    const failing = TABLE.filter(([, body]) => problems(firstMatch, body).length > 0).map(([name]) => name);
    expect(failing).toEqual(['now last, a record holding a now']);
  });
});
