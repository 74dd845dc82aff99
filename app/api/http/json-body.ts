/** The contract's POST rules (type, length, depth) and the JSON body read exactly once. */
import type { Context } from 'hono';
import { isDecimalLength, isJsonMediaType, MAX_BODY_BYTES } from './body-headers.js';
import { takeEarlyBody } from './early-body.js';
import type { AppEnv } from './env.js';
import { ApiError } from './errors.js';
import { requestHeader } from './request-header.js';

/** Deeper bodies are refused: a record this deep is a mistake or an attack, and serialising one overflows. */
export const MAX_BODY_DEPTH = 64;
const CLOSE = { connection: 'close' };
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The contract's POST rules 1-6, in order, then the body read exactly once. 411 and 413 are decided
 * from the headers before a byte of the body is read (and the connection is closed, so an unread body
 * is never parsed as a next request). A body cut short, or one whose connection the HTTP parser has
 * refused meanwhile (it ran past its Content-Length), is refused and never acted on.
 */
export function readJsonObject(
  c: Context<AppEnv>,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const type = requestHeader(c, 'content-type');
  if (type === undefined || !isJsonMediaType(type)) {
    throw new ApiError(
      'unsupported_media_type',
      'POST bodies must be sent with Content-Type: application/json.',
    );
  }
  const lengthHeader = requestHeader(c, 'content-length');
  if (lengthHeader === undefined) {
    throw new ApiError(
      'length_required',
      'A Content-Length header is required; chunked bodies are refused.',
      {
        headers: CLOSE,
      },
    );
  }
  if (!isDecimalLength(lengthHeader)) {
    throw new ApiError('invalid_content_length', 'Content-Length must be a single decimal integer.', {
      headers: CLOSE,
    });
  }
  const length = Number(lengthHeader);
  if (length > MAX_BODY_BYTES) {
    throw new ApiError('payload_too_large', `The body must be at most ${MAX_BODY_BYTES} bytes.`, {
      headers: CLOSE,
    });
  }

  // Read before the request reached the app (early-body.ts): the body is whole, and answered at once.
  const incoming = c.env?.incoming;
  const early = incoming && takeEarlyBody(incoming);
  if (early !== undefined) return parseBody(c, early, length);
  return readBody(c).then(
    (bytes) => parseBody(c, bytes, length),
    () => {
      throw incompleteBody();
    },
  );
}

/** The rest of the POST rules, on the body's bytes: its length, then JSON, an object, storable. */
function parseBody(c: Context<AppEnv>, bytes: Uint8Array, length: number): Record<string, unknown> {
  const socket = c.env?.incoming?.socket;
  if (bytes.byteLength !== length || socket?.destroyed || socket?.writableEnded) throw incompleteBody();

  let value: unknown;
  let text: string;
  try {
    text = utf8.decode(bytes);
    value = JSON.parse(text);
  } catch {
    throw new ApiError('invalid_json', 'The body is not valid JSON (UTF-8).');
  }
  if (!isPlainObject(value)) {
    throw new ApiError(
      'body_not_object',
      'The body must be a JSON object, not an array, string, number or null.',
    );
  }
  // Only a \u escape can smuggle a lone surrogate past the fatal UTF-8 decoder; skip the scan otherwise.
  const problem = storableProblem(value, 1, /\\u[dD][89a-fA-F]/.test(text));
  if (problem) throw new ApiError('invalid_json', problem);
  return value;
}

/**
 * The body's bytes. On a socket they are read from Node's IncomingMessage as they came, with no copy
 * into an ArrayBuffer: the adapter's `arrayBuffer()` allocated one per request, about 3% of a POST's
 * CPU in the profile (docs/hardening.md). Under `app.request()` there is no socket: the Web Request's.
 * Rejects when the stream ends in an error or closes before its end.
 */
function readBody(c: Context<AppEnv>): Promise<Uint8Array> {
  const incoming = c.env?.incoming;
  if (incoming === undefined) return c.req.arrayBuffer().then((buffer) => new Uint8Array(buffer));
  if (incoming.destroyed || incoming.readableEnded) return Promise.reject(new Error('body unavailable'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
    };
    const settle = (err?: Error) => {
      incoming.off('data', onData).off('end', settle).off('error', settle).off('close', onClose);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    };
    const onClose = () => settle(new Error('closed before the end of the body'));
    incoming.on('data', onData).once('end', settle).once('error', settle).once('close', onClose);
  });
}

const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATE_PROBLEM =
  'The body holds a string with a lone UTF-16 surrogate escape (e.g. "\\ud800"); it is not Unicode text.';

/**
 * Why a parsed body cannot be stored and served back, or undefined. JSON.parse accepts both of these,
 * but a body nested thousands deep makes every later JSON.stringify of the state throw (so one request
 * would break GET /state for good), and a lone surrogate (`"\ud800"`) is not Unicode text and breaks
 * percent-encoding (the Location header). Recursion is bounded by MAX_BODY_DEPTH.
 */
function storableProblem(value: unknown, depth: number, checkText: boolean): string | undefined {
  if (typeof value === 'string') {
    return checkText && LONE_SURROGATE.test(value) ? LONE_SURROGATE_PROBLEM : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth > MAX_BODY_DEPTH) return `The body nests deeper than ${MAX_BODY_DEPTH} levels.`;
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = storableProblem(item, depth + 1, checkText);
      if (problem) return problem;
    }
    return undefined;
  }
  // for-in, not Object.entries: no array per object (an order of magnitude cheaper for a case record).
  // A parsed body's keys are all own and enumerable (JSON.parse makes `__proto__` an own key too).
  for (const key in value) {
    if (checkText && LONE_SURROGATE.test(key)) return LONE_SURROGATE_PROBLEM;
    const problem = storableProblem((value as Record<string, unknown>)[key], depth + 1, checkText);
    if (problem) return problem;
  }
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const incompleteBody = () =>
  new ApiError('incomplete_body', 'The body did not match its Content-Length; nothing was done.', {
    headers: CLOSE,
  });
