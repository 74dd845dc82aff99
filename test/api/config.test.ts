import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../app/api/config.js';

describe('loadConfig', () => {
  it('defaults to 127.0.0.1:8081', () => {
    expect(loadConfig([], {})).toMatchObject({
      host: '127.0.0.1',
      port: 8081,
      allowedClients: null,
      allowedHosts: [],
    });
  });

  it('reads HOST and PORT, and flags win over the environment', () => {
    expect(loadConfig([], { HOST: '0.0.0.0', PORT: '9000' })).toMatchObject({ host: '0.0.0.0', port: 9000 });
    expect(loadConfig(['--host', '::1', '--port=0'], { HOST: '0.0.0.0', PORT: '9000' })).toMatchObject({
      host: '::1',
      port: 0,
    });
    expect(loadConfig([], { HOST: 'mock-api' }).host).toBe('mock-api');
  });

  it.each([
    [['--port', '70000'], {}, /port.*0 to 65535/],
    [[], { PORT: 'eighty' }, /port/],
    [[], { PORT: '80.5' }, /port.*whole/],
    [[], { PORT: '-1' }, /port/],
    [['--host', 'bad host!'], {}, /host/],
    [['--nope'], {}, /invalid arguments/],
    [['stray'], {}, /invalid arguments/],
    [[], { ALLOWED_CLIENTS: '10.0.0.0/33' }, /ALLOWED_CLIENTS/],
    [[], { ALLOWED_CLIENTS: 'nonsense' }, /ALLOWED_CLIENTS/],
    [[], { REQUEST_TIMEOUT_MS: '0' }, /REQUEST_TIMEOUT_MS/],
  ])('refuses %j %j with one clear line', (argv, env, pattern) => {
    try {
      loadConfig(argv, env);
      expect.fail('expected a ConfigError');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const message = (err as Error).message;
      expect(message).toMatch(pattern);
      expect(message).not.toContain('\n');
    }
  });

  it('parses the access allowlists', () => {
    const config = loadConfig([], {
      ALLOWED_CLIENTS: '172.30.66.0/24, 127.0.0.1',
      ALLOWED_HOSTS: 'mock-api,Lab.local',
    });
    expect(config.allowedClients?.includes('172.30.66.9')).toBe(true);
    expect(config.allowedClients?.includes('::ffff:127.0.0.1')).toBe(true);
    expect(config.allowedClients?.includes('172.30.67.1')).toBe(false);
    expect(config.allowedHosts).toEqual(['mock-api', 'Lab.local']);
  });
});
