/** The service's refusals: the one error type, its one renderer, and its form for a raw socket. */
import { STATUS_CODES } from 'node:http';
import { HTTPException } from 'hono/http-exception';
import { ERROR_STATUS, type ErrorBody, type ErrorCode, type ErrorDetail } from '../schemas/error.js';
import { JSON_CONTENT_TYPE, jsonResponse } from './json-response.js';

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
