import { describe, expect, it } from 'vitest';
import { CHECK_USAGE, parseCheckOptions } from '../../app/check/options.js';
import { UsageError } from '../../app/targets/options.js';

describe('check options', () => {
  it('reference: its own mock API, the default paths and report, no API key', () => {
    expect(parseCheckOptions(['--stage', 'enrich', '--target', 'reference'], { N8N_API_KEY: 'k' })).toEqual({
      stage: 'enrich',
      only: false,
      target: 'reference',
      api: { kind: 'local' },
      n8nUrl: 'http://127.0.0.1:5678',
      editorUrl: 'http://127.0.0.1:5678',
      timings: false,
      json: false,
      resumeOrigin: undefined,
      webhookPath: 'suspicious-login',
      rollbackPath: 'suspicious-login-rollback',
      mappingPath: undefined,
      reportPath: 'reports/check-last.json',
      approvalTimeoutSeconds: 3,
      apiKey: undefined,
      verbose: false,
    });
  });

  it('n8n: the API key and the approval limit come from the environment; paths lose /webhook/', () => {
    const options = parseCheckOptions(
      [
        ...['--stage', 'all', '--target', 'n8n', '--api-exec', 'docker compose exec -T mock-api x'],
        ...['--webhook-path', '/webhook/my-alerts', '--rollback-path', 'undo'],
      ],
      { N8N_API_KEY: ' key-1 ', APPROVAL_TIMEOUT_SECONDS: '20' },
    );
    expect(options).toMatchObject({
      stage: 'all',
      api: { kind: 'exec', prefix: 'docker compose exec -T mock-api x' },
      webhookPath: 'my-alerts',
      rollbackPath: 'undo',
      apiKey: 'key-1',
      approvalTimeoutSeconds: 20,
    });
  });

  it('--api-socket: the mock API over its Unix socket (the check inside the lab)', () => {
    expect(
      parseCheckOptions(['--stage', 'webhook', '--target', 'n8n', '--api-socket', '/run/mock-api/api.sock']),
    ).toMatchObject({ api: { kind: 'socket', path: '/run/mock-api/api.sock' } });
  });

  it.each([
    [['--target', 'reference'], /--stage/],
    [['--stage', 'deploy', '--target', 'reference'], /--stage must be one of webhook, validate/],
    [['--stage', 'all', '--target', 'n8n'], /needs --api URL, --api-socket PATH or --api-exec/],
    [['--stage', 'all', '--target', 'reference', '--api-exec', 'x'], /not --api-exec/],
    [['--stage', 'all', '--target', 'reference', '--api-socket', '/run/x.sock'], /not --api-socket/],
    [
      ['--stage', 'all', '--target', 'n8n', '--api-socket', 'relative.sock'],
      /--api-socket: must be an absolute/,
    ],
    [['--stage', 'all', '--target', 'n8n', '--api-socket', '/a', '--api', 'http://a'], /give one of/],
    [['--stage', 'all', '--target', 'n8n', '--api', 'ftp://x', '--n8n', 'http://a'], /--api/],
    [['--stage', 'all', '--target', 'reference', '--webhook-path', 'mine'], /apply to --target n8n/],
    [['--stage', 'all', '--target', 'n8n', '--api', 'http://a', '--webhook-path', 'a b'], /--webhook-path/],
    [['--stage', 'all', '--target', 'reference', '--bogus'], /bogus/],
    [['--stage', 'all', '--only', '--target', 'reference'], /--only needs one stage/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCheckOptions(argv)).toThrow(UsageError);
    expect(() => parseCheckOptions(argv)).toThrow(message);
  });

  it("--editor-url: the address of a run's link (default the --n8n URL); --timings, --json", () => {
    const base = [
      '--stage',
      'enrich',
      '--target',
      'n8n',
      '--api',
      'http://mock:8081',
      '--n8n',
      'http://n8n:5678',
    ];
    expect(parseCheckOptions(base)).toMatchObject({
      editorUrl: 'http://n8n:5678',
      timings: false,
      json: false,
    });
    expect(
      parseCheckOptions([...base, '--editor-url', 'http://localhost:8080', '--timings', '--json']),
    ).toMatchObject({ editorUrl: 'http://localhost:8080', timings: true, json: true });
    expect(() => parseCheckOptions([...base, '--editor-url', 'ftp://x'])).toThrow(/--editor-url/);
  });

  it('--help returns null and the usage names every stage', () => {
    expect(parseCheckOptions(['--help'])).toBeNull();
    expect(CHECK_USAGE).toContain('webhook, validate, enrich, case-lookup, decide, approve, block, record');
  });
});
