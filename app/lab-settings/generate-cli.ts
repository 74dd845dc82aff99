/**
 * Writes the host scripts' copy of the lab's settings, docker/lab/settings.generated.sh, from
 * app/lab-settings/settings.ts:
 *   npx tsx app/lab-settings/generate-cli.ts [root]
 * test/lab-settings/shell.test.ts fails when the committed file is not what this writes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHELL_FILE, shellText } from './shell.js';

const root = process.argv[2] ?? '.';
writeFileSync(join(root, SHELL_FILE), shellText());
console.log(`wrote ${join(root, SHELL_FILE)}`);
