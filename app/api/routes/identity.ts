/** GET /identity/:user: one user of the fixed identity directory. */
import { z } from 'zod';
import { endpoint } from '../http/endpoint.js';
import { ApiError } from '../http/errors.js';
import { jsonResponse } from '../http/json-response.js';
import { ErrorBodySchema } from '../schemas/error.js';
import { findIdentity } from '../schemas/identities.js';
import { IdentitySchema } from '../schemas/identity.js';

export function identityRoutes() {
  return [
    endpoint(
      {
        method: 'GET',
        path: '/identity/:user',
        operationId: 'getIdentity',
        tag: 'identity',
        summary: 'Look up an identity in the fixed lab directory',
        params: {
          user: {
            description: 'Identity name, e.g. lab-admin',
            schema: z.string().min(1).max(128),
            code: 'invalid_parameter',
          },
        },
        responses: {
          200: { description: 'The identity', schema: IdentitySchema },
          404: { description: 'identity_not_found', schema: ErrorBodySchema },
        },
      },
      (_c, { user }) => {
        const identity = findIdentity(user);
        if (!identity) throw new ApiError('identity_not_found', `No identity named ${JSON.stringify(user)}.`);
        return jsonResponse(identity);
      },
    ),
  ];
}
