/**
 * The editor gate's settings and N8N_ALLOWED_SUBNET as the console reads them: the defaults, the bounds in
 * the gate's units, and one line naming the variable for each bad value.
 */
import { describe, expect, it } from 'vitest';
import { gateLimits, loadConsoleConfig } from '../../app/console/config.js';

describe("the console's gate settings", () => {
  it('defaults: 256 connections, 64 a client, 10 s to the first byte, 180 s quiet, 5 s after an end, an hour in all; no subnet', () => {
    const config = loadConsoleConfig({});
    expect(gateLimits(config)).toEqual({
      maxConnections: 256,
      maxPerClient: 64,
      firstByteMs: 10_000,
      idleMs: 180_000,
      endGraceMs: 5_000,
      maxLifeMs: 3_600_000,
    });
    expect(config.n8nAllowedSubnet).toBeUndefined();
  });

  it('reads each from its variable', () => {
    const config = loadConsoleConfig({
      EDITOR_GATE_MAX_CONNECTIONS: '100',
      EDITOR_GATE_MAX_PER_CLIENT: '40',
      EDITOR_GATE_FIRST_BYTE_SECONDS: '5',
      EDITOR_GATE_IDLE_SECONDS: '300',
      EDITOR_GATE_END_GRACE_SECONDS: '2',
      EDITOR_GATE_MAX_LIFE_SECONDS: '600',
      N8N_URL: 'http://n8n:5678',
      N8N_ALLOWED_SUBNET: '172.30.66.192/26',
    });
    expect(gateLimits(config)).toEqual({
      maxConnections: 100,
      maxPerClient: 40,
      firstByteMs: 5000,
      idleMs: 300_000,
      endGraceMs: 2000,
      maxLifeMs: 600_000,
    });
    expect(config.n8nAllowedSubnet?.cidr).toBe('172.30.66.192/26');
    expect(config.n8nAllowedSubnet?.includes('172.30.66.194')).toBe(true);
  });

  it.each([
    [{ EDITOR_GATE_MAX_CONNECTIONS: '0' }, 'invalid EDITOR_GATE_MAX_CONNECTIONS "0": must be 1 to 100000'],
    [{ EDITOR_GATE_MAX_PER_CLIENT: 'many' }, 'invalid EDITOR_GATE_MAX_PER_CLIENT "many": must be a number'],
    [
      { EDITOR_GATE_MAX_CONNECTIONS: '10', EDITOR_GATE_MAX_PER_CLIENT: '20' },
      'invalid EDITOR_GATE_MAX_PER_CLIENT "20": must not be above EDITOR_GATE_MAX_CONNECTIONS',
    ],
    [
      { EDITOR_GATE_FIRST_BYTE_SECONDS: '1.5' },
      'invalid EDITOR_GATE_FIRST_BYTE_SECONDS "1.5": must be a whole number of seconds',
    ],
    [
      { EDITOR_GATE_FIRST_BYTE_SECONDS: '60', EDITOR_GATE_IDLE_SECONDS: '30' },
      'invalid EDITOR_GATE_FIRST_BYTE_SECONDS "60": must not be above EDITOR_GATE_IDLE_SECONDS',
    ],
    [
      { EDITOR_GATE_END_GRACE_SECONDS: '-1' },
      'invalid EDITOR_GATE_END_GRACE_SECONDS "-1": must be 1 to 86400 seconds',
    ],
    [
      { N8N_ALLOWED_SUBNET: 'n8n-front' },
      'invalid N8N_ALLOWED_SUBNET "n8n-front": must be an IPv4 network, a.b.c.d/n',
    ],
    [
      { N8N_URL: 'http://10.9.8.7:5678', N8N_ALLOWED_SUBNET: '172.30.66.192/26' },
      'invalid N8N_ALLOWED_SUBNET "172.30.66.192/26": n8n at 10.9.8.7 is outside N8N_ALLOWED_SUBNET 172.30.66.192/26: not connecting',
    ],
  ])('refuses %j in one line', (env, line) => {
    expect(() => loadConsoleConfig(env)).toThrow(line);
  });

  it('takes a literal N8N_URL inside the subnet', () => {
    const config = loadConsoleConfig({
      N8N_URL: 'http://172.30.66.200:5678',
      N8N_ALLOWED_SUBNET: '172.30.66.192/26',
    });
    expect(config.n8nAllowedSubnet?.cidr).toBe('172.30.66.192/26');
  });
});
