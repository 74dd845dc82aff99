import { STATUS_CODES } from 'node:http';
import { HTTPException } from 'hono/http-exception';
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

interface ApiErrorOptions {
  details?: ErrorDetail[];
  /** Members placed beside `error`, e.g. the existing entry of a 409. */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** The one error type: a code from the table above, a sentence, and optionally details. */
export class ApiError extends HTTPException {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly extra: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    // An ApiError is an answer, not a fault: its stack is never shown, and capturing one costs more than
    // the rest of a refusal (most of a thrown error's cost in a profile), which hostile traffic pays per request.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(ERROR_STATUS[code], { message });
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiError';
    this.code = code;
    this.details = options.details;
    this.extra = options.extra;
    this.headers = options.headers;
  }

  body(): ErrorBody & Record<string, unknown> {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.details) error.details = this.details;
    return { error, ...this.extra };
  }
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Builds a JSON response with the contract's content type. A plain header object keeps
 * @hono/node-server on its fast path (no Headers instance, no stream).
 */
export function jsonResponse(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return jsonTextResponse(JSON.stringify(body), status, headers);
}

/** The same, for a body already serialised (a store that needed the JSON anyway hands it over). */
export function jsonTextResponse(text: string, status = 200, headers?: Record<string, string>): Response {
  return new Response(text, {
    status,
    headers: headers
      ? { 'content-type': JSON_CONTENT_TYPE, ...headers }
      : { 'content-type': JSON_CONTENT_TYPE },
  });
}

/** Serialises an ApiError for a raw socket, where no Hono context exists (the server's clientError). */
export function rawErrorResponse(code: ErrorCode, message: string): string {
  const body = JSON.stringify(new ApiError(code, message).body());
  const status = ERROR_STATUS[code];
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    `content-type: ${JSON_CONTENT_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  );
}

/** The single onError: ApiErrors become the contract's shape; anything else is logged and hidden. */
export function renderError(err: Error, logError: (err: unknown) => void): Response {
  if (err instanceof ApiError) return jsonResponse(err.body(), err.status, err.headers);
  logError(err);
  return jsonResponse(
    new ApiError('internal_error', 'The service failed to handle the request.').body(),
    500,
  );
}
