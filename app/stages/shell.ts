/**
 * The host scripts' copy of ./stages.ts: docker/lab/stages.generated.sh, the stages in order as a bash array
 * (LAB_STAGES), sourced by docker/lab/lifecycle.sh for what `make up` prints. Pure: ./generate-cli.ts writes
 * it, test/stages/shell-copy.test.ts fails when the committed file is not this text.
 */
import { STAGE_NAMES } from './stages.js';

/** Where the shell's copy lives, from the checkout's root. */
export const STAGES_SHELL_FILE = 'docker/lab/stages.generated.sh';
export const STAGES_GENERATE_COMMAND = 'npx tsx app/stages/generate-cli.ts';

/** A stage name the shell may hold unquoted in an array. */
const PLAIN = /^[a-z][a-z-]*$/;

/** The text of docker/lab/stages.generated.sh for these stages (the declared ones by default). */
export function stagesShellText(stages: readonly string[] = STAGE_NAMES): string {
  for (const stage of stages) {
    if (!PLAIN.test(stage)) throw new Error(`${stage} is not a stage name the shell copy can hold unquoted`);
  }
  return [
    '# shellcheck shell=bash',
    `# generated: do not edit. Written by \`${STAGES_GENERATE_COMMAND}\` from app/stages/stages.ts, the one`,
    '# declaration of the stages; sourced by docker/lab/lifecycle.sh (the list `make up` prints).',
    '',
    '# The stages a trainee builds and checks, in order.',
    `LAB_STAGES=(${stages.join(' ')})`,
    '',
  ].join('\n');
}
