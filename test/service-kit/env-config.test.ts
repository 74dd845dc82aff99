/**
 * The one settings reader both services use (app/service-kit/env-config.ts): the mock API's loadConfig
 * and the console's loadConsoleConfig word a bad value the same way, in one line naming its variable.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, loadConfig } from '../../app/api/config.js';
import { loadConsoleConfig } from '../../app/console/config.js';
import { parseEnvConfig } from '../../app/service-kit/env-config.js';

const refusal = (load: () => unknown): { type: string; message: string } => {
  try {
    load();
  } catch (err) {
    return { type: (err as Error).name, message: (err as Error).message };
  }
  throw new Error('expected a refusal');
};

describe('parseEnvConfig', () => {
  const schema = z.object({ size: z.coerce.number().int('must be a whole number').default(3) });
  const variables = { size: 'SIZE' };

  it('reads each key from its variable; an empty variable is unset; an override wins', () => {
    expect(parseEnvConfig(schema, { SIZE: '5' }, { variables })).toEqual({ ok: true, config: { size: 5 } });
    expect(parseEnvConfig(schema, { SIZE: '' }, { variables })).toEqual({ ok: true, config: { size: 3 } });
    const overrides = { size: '7' };
    expect(parseEnvConfig(schema, { SIZE: 'x' }, { variables, overrides })).toEqual({
      ok: true,
      config: { size: 7 },
    });
  });

  it('words a bad value with its variable, or its label, and hides a hidden one', () => {
    const env = { SIZE: '1.5' };
    expect(parseEnvConfig(schema, env, { variables })).toEqual({
      ok: false,
      error: 'invalid SIZE "1.5": must be a whole number',
    });
    expect(parseEnvConfig(schema, env, { variables, labels: { size: 'size (SIZE or --size)' } })).toEqual({
      ok: false,
      error: 'invalid size (SIZE or --size) "1.5": must be a whole number',
    });
    expect(parseEnvConfig(schema, env, { variables, hidden: ['size'] })).toEqual({
      ok: false,
      error: 'invalid SIZE (not shown): must be a whole number',
    });
  });

  it('names the configuration when the issue is about no one setting', () => {
    const whole = schema.refine(() => false, 'never fits');
    expect(parseEnvConfig(whole, {}, { variables })).toEqual({
      ok: false,
      error: 'invalid configuration "": never fits',
    });
  });
});

describe('the two loaders, word for word', () => {
  it.each([
    [['--port', '70000'], {}, 'invalid port (PORT or --port) "70000": must be 0 to 65535'],
    [[], { PORT: 'eighty' }, 'invalid port (PORT or --port) "eighty": must be a number'],
    [
      ['--host', 'bad host!'],
      {},
      'invalid host (HOST or --host) "bad host!": must be an IP address or a host name',
    ],
    [
      [],
      { HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' },
      'invalid HEADERS_TIMEOUT_MS "20000": must not exceed REQUEST_TIMEOUT_MS (Node refuses to start otherwise)',
    ],
    [[], { SOCKET_PATH: 'api.sock' }, 'invalid SOCKET_PATH "api.sock": must be an absolute path'],
  ])('the mock API refuses %j %j with a ConfigError', (argv, env, line) => {
    expect(refusal(() => loadConfig(argv, env))).toEqual({ type: 'ConfigError', message: line });
    expect(() => loadConfig(argv, env)).toThrow(ConfigError);
  });

  it('an empty flag counts as unset, as an empty variable does', () => {
    expect(loadConfig(['--host='], { HOST: 'bad host!' }).host).toBe('127.0.0.1');
    expect(loadConfig([], { PORT: '' }).port).toBe(8081);
  });

  it.each([
    [{ N8N_URL: 'ftp://x' }, 'invalid N8N_URL "ftp://x": must be an http:// or https:// URL'],
    [{ MOCK_API_SOCKET: 'rel.sock' }, 'invalid MOCK_API_SOCKET "rel.sock": must be an absolute path'],
    [{ LAB_STARTERS: 'maybe' }, 'invalid LAB_STARTERS "maybe": must be on or off'],
    [{ CONSOLE_SECRET: 'too-short' }, 'invalid CONSOLE_SECRET (not shown): must be at least 12 characters'],
  ])('the console refuses %j', (env, line) => {
    expect(refusal(() => loadConsoleConfig(env))).toEqual({ type: 'Error', message: line });
  });
});
