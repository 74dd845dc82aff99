/** The service's JSON answers, with the contract's content type: the 200s and 201s, and errors.ts's refusals. */
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
