import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../app/acceptance/options.js';
import { CASE_NAMES } from '../../app/acceptance/verdict.js';
import { APPROVAL_TIMEOUT_SECONDS } from '../../app/lab-settings/settings.js';
import { UsageError } from '../../app/targets/options.js';

describe('runner options', () => {
  it('reference without --api runs its own mock API, every case, a short approval limit', () => {
    expect(parseOptions(['--target', 'reference'])).toEqual({
      target: 'reference',
      api: { kind: 'local' },
      n8nUrl: 'http://127.0.0.1:5678',
      resumeOrigin: undefined,
      reportPath: 'reports/acceptance-reference.json',
      cases: [...CASE_NAMES],
      approvalTimeoutSeconds: 3,
      verbose: false,
    });
  });

  it('n8n takes the mock API by URL or by command, and the approval limit from the workflow setting', () => {
    const byUrl = parseOptions(['--target', 'n8n', '--api', 'http://127.0.0.1:8081'], {
      APPROVAL_TIMEOUT_SECONDS: '20',
    });
    expect(byUrl).toMatchObject({
      api: { kind: 'http', url: 'http://127.0.0.1:8081' },
      approvalTimeoutSeconds: 20,
    });
    const byExec = parseOptions([
      '--target',
      'n8n',
      '--api-exec',
      'docker compose exec -T mock-api x --envelope',
    ]);
    expect(byExec).toMatchObject({
      api: { kind: 'exec' },
      approvalTimeoutSeconds: APPROVAL_TIMEOUT_SECONDS.default,
    });
    const explicit = parseOptions(
      ['--target', 'n8n', '--api', 'http://a:1', '--approval-timeout-seconds', '7'],
      {
        APPROVAL_TIMEOUT_SECONDS: '20',
      },
    );
    expect(explicit?.approvalTimeoutSeconds).toBe(7);
  });

  it("n8n refuses a workflow setting that breaks the lab rule, in the host scripts' words", () => {
    const argv = ['--target', 'n8n', '--api', 'http://a:1'];
    expect(() => parseOptions(argv, { APPROVAL_TIMEOUT_SECONDS: '1.5' })).toThrow(UsageError);
    expect(() => parseOptions(argv, { APPROVAL_TIMEOUT_SECONDS: '1.5' })).toThrow(
      /^APPROVAL_TIMEOUT_SECONDS=1\.5 is not a whole number of seconds from 1 to 3600$/,
    );
    expect(parseOptions(argv, { APPROVAL_TIMEOUT_SECONDS: '' })?.approvalTimeoutSeconds).toBe(
      APPROVAL_TIMEOUT_SECONDS.default,
    );
  });

  it('--cases keeps the matrix order and refuses unknown names', () => {
    expect(parseOptions(['--target', 'reference', '--cases', 'rollback, positive'])?.cases).toEqual([
      'positive',
      'rollback',
    ]);
    expect(() => parseOptions(['--target', 'reference', '--cases', 'positive,nope'])).toThrow(
      /unknown case "nope"/,
    );
  });

  it.each([
    [[], /--target/],
    [['--target', 'zapier'], /--target/],
    [['--target', 'n8n'], /needs --api/],
    [['--target', 'reference', '--api-exec', 'x'], /not --api-exec/],
    [
      ['--target', 'n8n', '--api', 'http://a:1', '--api-exec', 'x'],
      /give one of --api, --api-socket, --api-exec/,
    ],
    [['--target', 'n8n', '--api-socket', '/s', '--api-exec', 'x'], /give one of/],
    [['--target', 'reference', '--api-socket', '/s'], /not --api-socket/],
    [['--target', 'reference', '--api', 'ftp://a'], /--api/],
    [['--target', 'reference', '--approval-timeout-seconds', '0'], /--approval-timeout-seconds/],
    [
      ['--target', 'reference', '--approval-timeout-seconds', '2.5'],
      '--approval-timeout-seconds: 2.5 is not a whole number of seconds from 1 to 3600',
    ],
    [['--target', 'reference', '--bogus'], /bogus/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseOptions(argv)).toThrow(UsageError);
    expect(() => parseOptions(argv)).toThrow(message);
  });

  it('--help asks for the usage', () => {
    expect(parseOptions(['--help'])).toBeNull();
  });
});
