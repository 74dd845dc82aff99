import { STATUS_CODES } from 'node:http';
import { HTTPException } from 'hono/http-exception';
import { ERROR_STATUS, type ErrorBody, type ErrorCode, type ErrorDetail } from '../schemas/error.js';

interface ApiErrorOptions {
  details?: ErrorDetail[];
  /** Members placed beside `error`, e.g. the existing entry of a 409. */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** The one error type: a code from the table in schemas/error.ts, a sentence, and optionally details. */
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
