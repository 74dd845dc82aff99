/**
 * The console's key for n8n's API from a file (N8N_API_KEY_FILE: the Kubernetes lab's set-up container
 * writes it there): read when the key itself is not set, passed on as N8N_API_KEY, refused in one line when
 * the file is missing or empty.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConsoleConfig } from '../../app/console/config.js';
import { withKeyFile } from '../../app/tool-kit/key-file.js';

const dir = mkdtempSync(join(tmpdir(), 'console-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('N8N_API_KEY_FILE', () => {
  it('gives the key in the file, without its line end, to the console and to what it starts', () => {
    const file = join(dir, 'key');
    writeFileSync(file, 'the-key\n');
    const env = withKeyFile({ N8N_API_KEY_FILE: file });
    expect(env.N8N_API_KEY).toBe('the-key');
    expect(loadConsoleConfig(env).n8nApiKey).toBe('the-key');
  });

  it('leaves a key given itself, and an environment without the file, as they are', () => {
    expect(withKeyFile({ N8N_API_KEY: 'given', N8N_API_KEY_FILE: join(dir, 'none') }).N8N_API_KEY).toBe(
      'given',
    );
    expect(withKeyFile({}).N8N_API_KEY).toBeUndefined();
  });

  it('refuses a missing or empty file in one line', () => {
    expect(() => withKeyFile({ N8N_API_KEY_FILE: join(dir, 'none') })).toThrow(
      /^N8N_API_KEY_FILE .*none: ENOENT$/,
    );
    const empty = join(dir, 'empty');
    writeFileSync(empty, '\n');
    expect(() => withKeyFile({ N8N_API_KEY_FILE: empty })).toThrow(/is empty$/);
  });
});
