/** The blocklist's routes: block, unblock and list addresses. */
import { endpoint, postEndpoint } from '../http/endpoint.js';
import { jsonResponse } from '../http/json-response.js';
import { unwrap } from '../http/refusal.js';
import {
  AlreadyBlockedSchema,
  BlockEntrySchema,
  BlockLookupSchema,
  BlockRequestSchema,
  UnblockSchema,
} from '../schemas/blocklist.js';
import { IpAddressSchema } from '../schemas/common.js';
import { ErrorBodySchema } from '../schemas/error.js';
import type { RouteDeps } from './deps.js';

export function blocklistRoutes({ store }: RouteDeps) {
  const ipParam = {
    ip: { description: 'An IPv4 or IPv6 address', schema: IpAddressSchema, code: 'invalid_ip' },
  } as const;
  return [
    postEndpoint(
      {
        path: '/blocklist',
        operationId: 'blockAddress',
        tag: 'blocklist',
        summary: 'Block the reserved lab address for 1-60 minutes',
        body: BlockRequestSchema,
        responses: {
          201: { description: 'The expiring entry', schema: BlockEntrySchema },
          403: { description: 'address_not_blockable: only 203.0.113.66', schema: ErrorBodySchema },
          409: {
            description: 'already_blocked, with the existing entry; nothing changed',
            schema: AlreadyBlockedSchema,
          },
        },
      },
      (_c, request) => jsonResponse(unwrap(store.blocklist.blockAddress(request, store.now())), 201),
    ),
    endpoint(
      {
        method: 'GET',
        path: '/blocklist/:ip',
        operationId: 'lookupBlock',
        tag: 'blocklist',
        summary: 'Is the address blocked?',
        params: ipParam,
        responses: {
          200: { description: 'blocked, with the exact entry when true', schema: BlockLookupSchema },
        },
      },
      (_c, { ip }) => {
        const entry = store.blocklist.lookup(ip, store.now());
        return jsonResponse(entry ? { ip, blocked: true, entry } : { ip, blocked: false });
      },
    ),
    endpoint(
      {
        method: 'DELETE',
        path: '/blocklist/:ip',
        operationId: 'unblockAddress',
        tag: 'blocklist',
        summary: 'Remove the exact entry (rollback)',
        params: ipParam,
        responses: {
          200: { description: 'The removed entry', schema: UnblockSchema },
          404: { description: 'not_blocked', schema: ErrorBodySchema },
        },
      },
      (_c, { ip }) => {
        const entry = unwrap(store.blocklist.unblockAddress(ip, store.now()));
        return jsonResponse({ ip, removed: true, blocked: false, entry });
      },
    ),
  ];
}
