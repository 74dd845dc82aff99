import { describe, expect, it } from 'vitest';
import { NotificationSchema } from '../../../app/api/schemas/notification.js';
import { expectError, expectSchema, makeTestApp } from '../../helpers/test-app.js';

describe('POST /notify', () => {
  it('accepts a notification with 202 and returns the record with id, status and accepted_at', async () => {
    const t = makeTestApp();
    const res = await t.post('/notify', {
      message: 'Approve block of 203.0.113.66?',
      recipient: 'soc-approver',
      subject: 'Approval requested',
      event_id: 'evt-1',
      severity: 'high',
      channel: 'approval',
      resume_url: 'http://n8n/webhook-waiting/1?signature=ab',
    });
    expect(res.status).toBe(202);
    const record = expectSchema(NotificationSchema, res.body);
    expect(record).toMatchObject({
      id: 'ntf-000001',
      status: 'accepted',
      accepted_at: '2026-03-01T09:00:00.000Z',
      channel: 'approval',
      resume_url: 'http://n8n/webhook-waiting/1?signature=ab',
    });
    expect((await t.post('/notify', { message: 'two' })).body).toMatchObject({ id: 'ntf-000002' });
  });

  it('keeps the service-owned id, status and accepted_at', async () => {
    const res = await makeTestApp().post('/notify', {
      message: 'm',
      id: 'x',
      status: 'read',
      accepted_at: 'never',
    });
    expect(res.body).toMatchObject({
      id: 'ntf-000001',
      status: 'accepted',
      accepted_at: '2026-03-01T09:00:00.000Z',
    });
  });

  it.each([
    [{}],
    [{ message: '' }],
    [{ message: 3 }],
    [{ message: 'm', recipient: 1 }],
    [{ message: 'm', severity: [] }],
  ])('refuses %j with 422', async (body) => {
    const t = makeTestApp();
    expectError(await t.post('/notify', body), 422, 'validation_failed');
    expect(t.store.notifications.size).toBe(0);
  });

  it('refuses the 1,001st notification with 507 saying to reset', async () => {
    const t = makeTestApp();
    for (let i = 0; i < 1000; i++) expect((await t.post('/notify', { message: `n${i}` })).status).toBe(202);
    const refused = await t.post('/notify', { message: 'one too many' });
    expectError(refused, 507, 'notification_limit_reached');
    expect(JSON.stringify(refused.body)).toMatch(/reset/i);
    expect(t.store.notifications.size).toBe(1000);
  });
});
