/** The mock API's errors: every code and its status in one table, and the error body's schema. */
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';

/** Every error code the service can answer with, and its status. One table, so codes cannot drift. */
export const ERROR_STATUS = {
  bad_request: 400,
  invalid_content_length: 400,
  invalid_json: 400,
  body_not_object: 400,
  incomplete_body: 400,
  invalid_ip: 400,
  invalid_parameter: 400,
  client_not_allowed: 403,
  host_not_allowed: 403,
  origin_not_allowed: 403,
  address_not_blockable: 403,
  not_found: 404,
  identity_not_found: 404,
  case_not_found: 404,
  not_blocked: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  already_blocked: 409,
  length_required: 411,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  header_too_large: 431,
  internal_error: 500,
  case_connector_failed: 503,
  case_limit_reached: 507,
  case_too_large: 507,
  notification_limit_reached: 507,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export const ErrorDetailSchema = z.object({ path: z.string(), message: z.string() });
export type ErrorDetail = z.infer<typeof ErrorDetailSchema>;

export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string().min(1),
      details: z.array(ErrorDetailSchema).optional(),
    }),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof ErrorBodySchema>;
