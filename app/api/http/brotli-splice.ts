/** A Brotli stream in two pieces, a head compressed once and a tail appended per answer (GET /state). */
import { brotliCompressSync, constants } from 'node:zlib';

/**
 * A Brotli stream (RFC 7932) in two pieces: a head compressed once and reused, and a short tail that
 * changes per answer, appended without compressing anything again. GET /state uses it: its head (the
 * whole state but `now`) is compressed once per state version, and each answer adds `<now>"}`.
 * Compressing the whole state per answer made br the slowest way to read it by an order of magnitude
 * (the figures: docs/hardening.md, "GET /state").
 */

/**
 * The head of a Brotli stream holding `head`, left open: flushed (BROTLI_OPERATION_FLUSH ends on a
 * byte boundary) but not finished. Only `brotliClose()` makes it a whole stream. Quality 1: the state
 * compresses 86x at it.
 */
export function brotliOpen(head: Uint8Array): Buffer {
  return brotliCompressSync(head, {
    finishFlush: constants.BROTLI_OPERATION_FLUSH,
    params: { [constants.BROTLI_PARAM_QUALITY]: 1 },
  });
}

/** The most bytes one uncompressed meta-block holds with four nibbles of length (RFC 7932, 9.2). */
export const BROTLI_TAIL_MAX = 1 << 16;

/**
 * What ends an open stream with `tail`, as is: one uncompressed meta-block, then an empty last one.
 * The meta-block header is ISLAST=0, MNIBBLES=4 (0 in two bits), MLEN-1 in 16 bits and
 * ISUNCOMPRESSED=1: 20 bits, read least significant first, padded with zeros to 3 bytes (the data of an
 * uncompressed meta-block starts on a byte boundary). The last meta-block is ISLAST=1, ISLASTEMPTY=1:
 * the byte 0x03.
 */
export function brotliClose(tail: Uint8Array): Buffer {
  if (tail.length < 1 || tail.length > BROTLI_TAIL_MAX)
    throw new RangeError(`a Brotli tail holds 1 to ${BROTLI_TAIL_MAX} bytes, not ${tail.length}`);
  const out = Buffer.allocUnsafe(tail.length + 4);
  out.writeUIntLE(((tail.length - 1) << 3) | (1 << 19), 0, 3);
  out.set(tail, 3);
  out[tail.length + 3] = 0x03;
  return out;
}
