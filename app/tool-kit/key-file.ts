/** The environment with n8n's API key read from the file N8N_API_KEY_FILE names. */
import { readFileSync } from 'node:fs';

/**
 * The environment with N8N_API_KEY read from the file N8N_API_KEY_FILE names, when that is set and the key
 * itself is not: the Kubernetes lab's set-up container writes the key there (app/n8n/init.ts), and the
 * console and the stage checker read it so. Throws one line when the file cannot be read or is empty.
 */
export function withKeyFile(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const file = env.N8N_API_KEY_FILE;
  if (!file || env.N8N_API_KEY) return env;
  let key: string;
  try {
    key = readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new Error(`N8N_API_KEY_FILE ${file}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  if (!key) throw new Error(`N8N_API_KEY_FILE ${file} is empty`);
  return { ...env, N8N_API_KEY: key };
}
