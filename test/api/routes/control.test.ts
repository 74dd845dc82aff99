import { describe, expect, it } from 'vitest';
import { CaseModeResponseSchema, ClockResponseSchema } from '../../../app/api/schemas/control.js';
import { expectError, expectSchema, makeTestApp } from '../../helpers/test-app.js';

describe('POST /control/case-mode', () => {
  it('sets each mode and answers with it and the previous one', async () => {
    const t = makeTestApp();
    let previous = 'healthy';
    for (const mode of ['failed', 'fail_next_write', 'healthy', 'healthy']) {
      const res = await t.post('/control/case-mode', { mode });
      expect(res.status).toBe(200);
      expect(expectSchema(CaseModeResponseSchema, res.body)).toEqual({
        case_mode: mode,
        previous_mode: previous,
      });
      previous = mode;
    }
  });

  it.each([[{}], [{ mode: 'broken' }], [{ mode: 'HEALTHY' }], [{ mode: null }]])(
    'refuses %j with 422',
    async (body) => {
      const t = makeTestApp();
      await t.post('/control/case-mode', { mode: 'failed' });
      expectError(await t.post('/control/case-mode', body), 422, 'validation_failed');
      expect((await t.get('/health')).body).toMatchObject({ case_mode: 'failed' });
    },
  );
});

describe('POST /control/clock', () => {
  it('moves the service clock forward and reset returns it to real time', async () => {
    const t = makeTestApp();
    const res = await t.post('/control/clock', { advance_minutes: 1440 });
    expect(expectSchema(ClockResponseSchema, res.body)).toEqual({ now: '2026-03-02T09:00:00.000Z' });
    expect((await t.get('/state')).body).toMatchObject({ now: '2026-03-02T09:00:00.000Z' });
    await t.post('/reset', {});
    expect((await t.get('/state')).body).toMatchObject({ now: '2026-03-01T09:00:00.000Z' });
  });

  it.each([
    [{ advance_minutes: 0 }],
    [{ advance_minutes: 1441 }],
    [{ advance_minutes: 1.5 }],
    [{ advance_minutes: '5' }],
    [{}],
  ])('refuses %j with 422 and leaves the clock alone', async (body) => {
    const t = makeTestApp();
    expectError(await t.post('/control/clock', body), 422, 'validation_failed');
    expect((await t.get('/state')).body).toMatchObject({ now: '2026-03-01T09:00:00.000Z' });
  });
});
