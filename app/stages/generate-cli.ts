/**
 * Writes the host scripts' copy of the stages, docker/lab/stages.generated.sh, from app/stages/stages.ts:
 *   npx tsx app/stages/generate-cli.ts [root]
 * test/stages/shell-copy.test.ts fails when the committed file is not what this writes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STAGES_SHELL_FILE, stagesShellText } from './shell.js';

const root = process.argv[2] ?? '.';
writeFileSync(join(root, STAGES_SHELL_FILE), stagesShellText());
console.log(`wrote ${join(root, STAGES_SHELL_FILE)}`);
