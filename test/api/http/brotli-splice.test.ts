/**
 * A Brotli stream made of a head compressed once and a tail appended as is (app/api/http/brotli-splice.ts)
 * must decode, by a real decoder, to exactly head + tail. Checked on a table of heads and tails (the
 * tail's length at its bounds, bytes that are not text, a head that is one byte, a head of 1 MB), with
 * one head reused for many tails as GET /state does. Broken splices (a wrong length, no last block, a
 * wrong block type, a head finished instead of flushed) are shown to be caught by the same decode.
 */
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BROTLI_TAIL_MAX, brotliClose, brotliOpen } from '../../../app/api/http/brotli-splice.js';
import { approvalNotification, caseRecord } from '../../../bench/fixtures.js';

/** The head of a state of workflow-sized records (bench/fixtures.ts), about `bytes` long. */
function stateLikeHead(bytes: number): Buffer {
  const cases: unknown[] = [];
  const notifications: unknown[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    cases.push(caseRecord(`evt-${i}`));
    notifications.push(approvalNotification(`evt-${i}`, i));
    length += JSON.stringify(cases.at(-1)).length + JSON.stringify(notifications.at(-1)).length;
  }
  return Buffer.from(
    `{"case_mode":"healthy","cases":${JSON.stringify(cases)},"notifications":${JSON.stringify(notifications)},"now":"`,
  );
}

const decode = (bytes: Buffer) => brotliDecompressSync(bytes);

const HEADS: [string, Buffer][] = [
  ['one byte', Buffer.from('{')],
  ['a small JSON head', Buffer.from('{"case_mode":"healthy","cases":[],"now":"')],
  ['a state-like head of about 1 MB', stateLikeHead(1_000_000)],
  ['bytes that are not text', Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 256))],
];
const TAILS: [string, Buffer][] = [
  ['one byte', Buffer.from('}')],
  ['a stamp and the closing', Buffer.from('2026-11-23T12:00:00.000Z"}')],
  ['UTF-8 text', Buffer.from('Zugriff verdächtig – 🔒"}')],
  ['the most one block holds', Buffer.alloc(BROTLI_TAIL_MAX, 0x61)],
];

describe('brotliOpen + brotliClose', () => {
  it.each(HEADS)('decodes to the head and each tail, the head compressed once (%s)', (_name, head) => {
    const open = brotliOpen(head);
    for (const [name, tail] of TAILS) {
      expect(decode(Buffer.concat([open, brotliClose(tail)])).equals(Buffer.concat([head, tail])), name).toBe(
        true,
      );
    }
  });

  it('compresses a state-like head well', () => {
    const head = stateLikeHead(1_000_000);
    expect(brotliOpen(head).length).toBeLessThan(head.length / 20);
  });

  it('refuses a tail it cannot hold in one block', () => {
    expect(() => brotliClose(Buffer.alloc(0))).toThrow(RangeError);
    expect(() => brotliClose(Buffer.alloc(BROTLI_TAIL_MAX + 1))).toThrow(RangeError);
  });

  const head = Buffer.from('{"cases":[{"event_id":"evt-1"}],"now":"');
  const tail = Buffer.from('2026-11-23T12:00:00.000Z"}');
  /** Each way of splicing wrongly, which the decode must catch (a throw, or other bytes). */
  const BROKEN: [string, () => Buffer][] = [
    ['a length one short', () => Buffer.concat([brotliOpen(head), withLengthOff(tail, -1)])],
    ['a length one long', () => Buffer.concat([brotliOpen(head), withLengthOff(tail, 1)])],
    ['no last block', () => Buffer.concat([brotliOpen(head), brotliClose(tail).subarray(0, -1)])],
    [
      'a compressed block type (ISUNCOMPRESSED 0)',
      () => {
        const close = brotliClose(tail);
        close[2] = (close[2] ?? 0) & ~0x08;
        return Buffer.concat([brotliOpen(head), close]);
      },
    ],
    ['a head finished, not flushed', () => Buffer.concat([brotliCompressSync(head), brotliClose(tail)])],
  ];

  it.each(BROKEN)('a splice with %s does not decode to head + tail', (_name, splice) => {
    const bytes = splice();
    let decoded: Buffer | undefined;
    try {
      decoded = decode(bytes);
    } catch {
      decoded = undefined;
    }
    expect(decoded?.equals(Buffer.concat([head, tail])) ?? false).toBe(false);
  });
});

/** brotliClose with its length field (MLEN - 1, bits 3-18 of the header) moved by `delta`. */
function withLengthOff(tail: Buffer, delta: number): Buffer {
  const close = brotliClose(tail);
  close.writeUIntLE(close.readUIntLE(0, 3) + delta * 8, 0, 3);
  return close;
}
