/**
 * The flags both tools share (app/targets/options.ts): the strict parse, the one way to the mock API with
 * the rules of each target, and the approval limit (the flag; else the reference's short default, or
 * n8n's from the lab setting, a bad one refused in one line).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  apiOf,
  approvalTimeoutOf,
  parseFlags,
  TARGET_FIELDS,
  TARGET_FLAGS,
  UsageError,
} from '../../app/targets/options.js';
import {
  N8N_APPROVAL_TIMEOUT_SECONDS,
  REFERENCE_APPROVAL_TIMEOUT_SECONDS,
} from '../../app/targets/targets.js';

const schema = z.object(TARGET_FIELDS);
const parse = (...argv: string[]) => {
  const raw = parseFlags(argv, TARGET_FLAGS, schema);
  if (raw === null) throw new Error('--help');
  return raw;
};

describe('parseFlags', () => {
  it('parses the shared flags, with the n8n default', () => {
    expect(parse('--target', 'n8n', '--api', 'http://127.0.0.1:8081')).toMatchObject({
      target: 'n8n',
      api: 'http://127.0.0.1:8081',
      n8n: 'http://127.0.0.1:5678',
      verbose: false,
    });
  });

  it('--help: null', () => {
    expect(parseFlags(['--help'], TARGET_FLAGS, schema)).toBeNull();
  });

  it.each([
    [['--target', 'n8n', '--nope'], /Unknown option '--nope'/],
    [['--target', 'somewhere'], /^--target: --target must be reference or n8n$/],
    [['--target', 'n8n', '--api', 'ftp://x'], /^--api: /],
    [['--target', 'n8n', '--api-socket', 'relative.sock'], /^--api-socket: must be an absolute path$/],
    [['--target', 'n8n', 'positional'], /positional/],
  ])('%j is one UsageError line', (argv, message) => {
    expect(() => parse(...argv)).toThrow(UsageError);
    expect(() => parse(...argv)).toThrow(message);
  });
});

describe('apiOf: one way to the mock API, as each target can use it', () => {
  it('each way given alone', () => {
    expect(apiOf(parse('--target', 'n8n', '--api', 'http://a:1'))).toEqual({
      kind: 'http',
      url: 'http://a:1',
    });
    expect(apiOf(parse('--target', 'n8n', '--api-socket', '/s.sock'))).toEqual({
      kind: 'socket',
      path: '/s.sock',
    });
    expect(apiOf(parse('--target', 'n8n', '--api-exec', 'docker exec x'))).toEqual({
      kind: 'exec',
      prefix: 'docker exec x',
    });
    expect(apiOf(parse('--target', 'reference'))).toEqual({ kind: 'local' });
  });

  it.each([
    [
      ['--target', 'n8n', '--api', 'http://a:1', '--api-socket', '/s'],
      /give one of --api, --api-socket, --api-exec/,
    ],
    [
      ['--target', 'reference', '--api-socket', '/s'],
      /--target reference needs --api URL .*not --api-socket/,
    ],
    [['--target', 'reference', '--api-exec', 'x'], /--target reference needs --api URL .*not --api-exec/],
    [['--target', 'n8n'], /--target n8n needs --api URL, --api-socket PATH or --api-exec/],
  ])('%j is refused', (argv, message) => {
    expect(() => apiOf(parse(...argv))).toThrow(UsageError);
    expect(() => apiOf(parse(...argv))).toThrow(message);
  });
});

describe('approvalTimeoutOf', () => {
  it('the flag wins, on either target', () => {
    expect(approvalTimeoutOf(parse('--target', 'reference', '--approval-timeout-seconds', '9'), {})).toBe(9);
    expect(
      approvalTimeoutOf(parse('--target', 'n8n', '--approval-timeout-seconds', '9'), {
        APPROVAL_TIMEOUT_SECONDS: '30',
      }),
    ).toBe(9);
  });

  it('without it: the reference’s short default; n8n’s from the setting, else its default', () => {
    expect(approvalTimeoutOf(parse('--target', 'reference'), { APPROVAL_TIMEOUT_SECONDS: '30' })).toBe(
      REFERENCE_APPROVAL_TIMEOUT_SECONDS,
    );
    expect(approvalTimeoutOf(parse('--target', 'n8n'), { APPROVAL_TIMEOUT_SECONDS: '30' })).toBe(30);
    expect(approvalTimeoutOf(parse('--target', 'n8n'), {})).toBe(N8N_APPROVAL_TIMEOUT_SECONDS);
  });

  it('a bad setting is one UsageError line, in the settings’ words', () => {
    expect(() => approvalTimeoutOf(parse('--target', 'n8n'), { APPROVAL_TIMEOUT_SECONDS: 'soon' })).toThrow(
      UsageError,
    );
  });
});
