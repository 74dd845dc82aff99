import { describe, expect, it } from 'vitest';
import { IdentitySchema } from '../../../app/api/schemas/identity.js';
import { expectError, expectSchema, makeTestApp } from '../../helpers/test-app.js';

describe('GET /identity/:user', () => {
  it('returns lab-admin as a critical identity', async () => {
    const res = await makeTestApp().get('/identity/lab-admin');
    expect(res.status).toBe(200);
    expect(expectSchema(IdentitySchema, res.body)).toMatchObject({ user: 'lab-admin', critical: true });
  });

  it('returns non-critical identities for exercises', async () => {
    const res = await makeTestApp().get('/identity/alice.analyst');
    expect(expectSchema(IdentitySchema, res.body)).toMatchObject({ user: 'alice.analyst', critical: false });
  });

  it('answers 404 identity_not_found for an unknown user', async () => {
    expectError(await makeTestApp().get('/identity/mallory'), 404, 'identity_not_found');
  });

  it('does not resolve prototype names as identities', async () => {
    const t = makeTestApp();
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expectError(await t.get(`/identity/${name}`), 404, 'identity_not_found');
    }
  });
});
