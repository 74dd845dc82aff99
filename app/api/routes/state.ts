/** GET /state and POST /reset: the whole state for verifiers (ETag, Brotli from 16 KiB), and its reset. */
import { brotliClose, brotliOpen } from '../http/brotli-splice.js';
import { endpoint, postEndpoint } from '../http/endpoint.js';
import { JSON_CONTENT_TYPE, jsonResponse } from '../http/json-response.js';
import { partsResponse } from '../http/parts-body.js';
import { ResetRequestSchema, ResetResponseSchema, StateSchema } from '../schemas/state.js';
import type { RouteDeps } from './deps.js';

export function stateRoutes({ store }: RouteDeps) {
  /** The state's head compressed, for the version it was made at: made by the first br reader of each. */
  let brotliHead: { version: number; bytes: Buffer } | undefined;
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
        const { version, head, headLength, tail } = store.stateParts(now);
        const length = headLength + tail.length;
        const headers: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE, ...validators };
        if (length >= COMPRESS_FROM_BYTES && acceptsBrotli(c.req.header('accept-encoding'))) {
          headers['content-encoding'] = 'br';
          if (brotliHead?.version !== version)
            brotliHead = { version, bytes: brotliOpen(Buffer.concat(head, headLength)) };
          const close = brotliClose(tail);
          return partsResponse(c, headers, [brotliHead.bytes, close], brotliHead.bytes.length + close.length);
        }
        return partsResponse(c, headers, [...head, tail], length);
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
 * Brotli from 16 KiB, compressed once per state version (app/api/http/brotli-splice.ts): a full state shrinks
 * to about a hundredth (docs/hardening.md). gzip is not offered: it would be compressed per answer, and is
 * larger (docs/hardening.md). A client that asks for gzip only (Node 20's fetch does) gets identity.
 */
const COMPRESS_FROM_BYTES = 16 * 1024;

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
