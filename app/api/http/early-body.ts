/** A POST's JSON body read before the request reaches the app, and taken once by the route. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isDecimalLength, isJsonMediaType, MAX_BODY_BYTES } from './body-headers.js';

/** Bodies read before their request reached the app, by request; each is taken once. */
const bodies = new WeakMap<IncomingMessage, Buffer>();

/** The body read before the app saw the request, if it was (readBodyFirst); taken once. */
export function takeEarlyBody(incoming: IncomingMessage): Buffer | undefined {
  const body = bodies.get(incoming);
  if (body !== undefined) bodies.delete(incoming);
  return body;
}

/**
 * A node:http listener that reads a POST's JSON body before it hands the request on, when its headers
 * allow it (a JSON type and a Content-Length within the limit): the route then has the whole body at
 * once and answers synchronously, and @hono/node-server writes the answer on its direct path instead
 * of its asynchronous one (a close listener, promises and an async write per answer). Any other
 * request is handed on at once, so the POST rules still refuse from the headers alone (411, 413, 415)
 * without reading a byte. A body cut short (the connection closed or the parser refused it) is handed
 * on without a body: the route then finds the stream ended and refuses it as before.
 */
export function readBodyFirst(
  listener: (req: IncomingMessage, res: ServerResponse) => unknown,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (!wantsEarlyRead(req)) {
      listener(req, res);
      return;
    }
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
    };
    const done = () => {
      stop();
      bodies.set(req, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
      listener(req, res);
    };
    const cut = () => {
      stop();
      listener(req, res);
    };
    const stop = () => {
      req.off('data', onData).off('end', done).off('error', cut).off('close', cut);
    };
    req.on('data', onData).once('end', done).once('error', cut).once('close', cut);
  };
}

function wantsEarlyRead(req: IncomingMessage): boolean {
  if (req.method !== 'POST') return false;
  const type = req.headers['content-type'];
  const length = req.headers['content-length'];
  return (
    type !== undefined &&
    isJsonMediaType(type) &&
    length !== undefined &&
    isDecimalLength(length) &&
    Number(length) <= MAX_BODY_BYTES
  );
}
