/**
 * What the acceptance matrix's and the stage checker's entries share: the terminal as their Output, and the
 * environment with the key for n8n's API read from N8N_API_KEY_FILE (the Kubernetes lab) when given so.
 */
import { withKeyFile } from './key-file.js';
import type { Output } from './output.js';

export const terminal: Output = {
  out: (line: string) => process.stdout.write(`${line}\n`),
  err: (line: string) => process.stderr.write(`${line}\n`),
};

/** The process environment for the tool `name`; undefined (with one line on stderr) when the key file fails. */
export function toolEnvironment(name: string): NodeJS.ProcessEnv | undefined {
  try {
    return withKeyFile(process.env);
  } catch (error) {
    process.stderr.write(`${name}: ${(error as Error).message}\n`);
    return undefined;
  }
}
