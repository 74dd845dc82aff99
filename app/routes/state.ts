import { brotliCompressSync, constants } from 'node:zlib';
import { JSON_CONTENT_TYPE, jsonResponse } from '../errors.js';
import { endpoint, postEndpoint } from '../http/endpoint.js';
import { partsResponse } from '../http/parts-body.js';
import { ResetRequestSchema, ResetResponseSchema, StateSchema } from '../schemas/state.js';
import type { RouteDeps } from './deps.js';

export function stateRoutes({ store }: RouteDeps) {
  return [
    endpoint(
      {
        method: 'GET',
        path: '/state',
        operationId: 'getState',
        tag: 'service',
        summary:
          'All destination state: cases, notifications, blocklist and its history, request journal. ' +
          'Answers 304 to an If-None-Match naming the current ETag (the state is unchanged; only `now` moved). ' +
          'Brotli-compressed when the client accepts br and the answer is 16 KiB or more.',
        responses: { 200: { description: 'The state', schema: StateSchema } },
      },
      (c) => {
        const now = store.now();
        const etag = store.etagAt(now);
        const validators = { etag, 'cache-control': 'no-cache', vary: 'accept-encoding' };
        const ifNoneMatch = c.req.header('if-none-match');
        if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, etag)) {
          return new Response(null, { status: 304, headers: validators });
        }
        const { parts, length } = store.stateParts(now);
        const headers: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE, ...validators };
        if (length >= COMPRESS_FROM_BYTES && acceptsBrotli(c.req.header('accept-encoding'))) {
          headers['content-encoding'] = 'br';
          const body = brotliCompressSync(Buffer.concat(parts, length), BROTLI_FAST);
          return new Response(body, { status: 200, headers });
        }
        return partsResponse(c, headers, parts, length);
      },
    ),
    postEndpoint(
      {
        path: '/reset',
        operationId: 'reset',
        tag: 'service',
        summary: 'Clear all state, make the connector healthy, return the clock to real time',
        body: ResetRequestSchema,
        responses: { 200: { description: 'Reset done', schema: ResetResponseSchema } },
      },
      () => {
        store.reset();
        return jsonResponse({ reset: true, case_mode: 'healthy' });
      },
    ),
  ];
}

/**
 * Brotli at quality 1: the full state (1.8 MB in bench/) becomes ~21 KB in ~1 ms; it saves the network,
 * not CPU. gzip is not offered: level 1 took ~4 ms for ~35 KB (docs/hardening.md).
 */
const COMPRESS_FROM_BYTES = 16 * 1024;
const BROTLI_FAST = { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } };

/** Whether Accept-Encoding accepts br: named (or `*`) with a q-value above 0 (RFC 9110, 12.5.3). */
export function acceptsBrotli(header: string | undefined): boolean {
  if (header === undefined) return false;
  let star = false;
  for (const part of header.toLowerCase().split(',')) {
    const [coding = '', ...params] = part.split(';').map((p) => p.trim());
    const q = params.find((p) => p.startsWith('q='));
    const acceptable = q === undefined || Number(q.slice(2)) > 0;
    if (coding === 'br') return acceptable;
    if (coding === '*') star = acceptable;
  }
  return star;
}

/** If-None-Match's weak comparison (RFC 9110, 13.1.2): `*`, or a list naming the tag, W/ or not. */
export function etagMatches(header: string, etag: string): boolean {
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const part of header.split(',')) {
    const tag = part.trim();
    if (tag === '*' || (tag.startsWith('W/') ? tag.slice(2) : tag) === opaque) return true;
  }
  return false;
}
