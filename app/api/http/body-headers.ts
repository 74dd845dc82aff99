/**
 * What a POST's headers must say before a byte of its body is read, as both readers of a body apply it:
 * the route's (json-body.ts) and the one that reads it before the app sees the request (early-body.ts).
 */

export const MAX_BODY_BYTES = 64 * 1024;

/** `application/json`, with or without parameters such as charset. */
export function isJsonMediaType(header: string): boolean {
  const semicolon = header.indexOf(';');
  const essence = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  return essence === 'application/json';
}

/** A Content-Length that is a single decimal integer (16 digits at most, so Number() keeps it exact). */
export function isDecimalLength(header: string): boolean {
  return /^\d{1,16}$/.test(header);
}
