/**
 * The lab's shell cannot import app/stages: it sources docker/lab/stages.generated.sh, written from the
 * declaration, and what `make up` prints as the stages to check (docker/lab/lifecycle.sh, where_things_are)
 * comes from it. Held here: the committed copy is what app/stages writes, and the printed list, run by bash,
 * is the declaration in its order.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STAGES_GENERATE_COMMAND, STAGES_SHELL_FILE, stagesShellText } from '../../app/stages/shell.js';
import { STAGE_NAMES } from '../../app/stages/stages.js';

/** The stages the text names, from `STAGE=<first>   then a, b, ...` to `or all`. */
function stagesNamedIn(text: string): string[] {
  const match = /STAGE=([a-z-]+)\s+then\s+([\s\S]*?),?\s+or all/.exec(text);
  if (!match) return [];
  const rest = (match[2] ?? '').split(/,\s*/).map((name) => name.trim());
  return [match[1] ?? '', ...rest].filter((name) => name !== '');
}

/**
 * What where_things_are prints, run by bash with the checkout at `root`; the lab's other helpers it calls
 * (the settings file, the save folder) are stood in for, since only the stages' line is looked at here.
 */
function printedByMakeUp(root: string): string {
  const script = [
    'set -euo pipefail',
    `ROOT=${JSON.stringify(root)}`,
    "env_value() { echo ''; }",
    'shown_path() { echo "$1"; }',
    'save_dir_of_lab() { echo saves; }',
    "LAB_MODE=exercise EDITOR_URL=http://editor CONSOLE_URL=http://console LAB_ARG='' APPROVAL_TIMEOUT_SECONDS=60",
    '. "$ROOT/docker/lab/lifecycle.sh"',
    'where_things_are',
  ].join('\n');
  return execFileSync('bash', ['-c', script], { encoding: 'utf8' });
}

describe('docker/lab/stages.generated.sh', () => {
  it(`is what app/stages writes (else: ${STAGES_GENERATE_COMMAND})`, () => {
    const committed = readFileSync(STAGES_SHELL_FILE, 'utf8');
    expect(committed, `stale: run ${STAGES_GENERATE_COMMAND}`).toBe(stagesShellText());
    expect(committed).toMatch(/^# generated: do not edit\./m);
    expect(stagesShellText(['webhook', 'validate'])).not.toBe(committed);
  });

  it('refuses a stage name the shell would split or expand', () => {
    expect(() => stagesShellText(['webhook', 'case lookup'])).toThrow(/case lookup/);
    expect(() => stagesShellText(['$(id)'])).toThrow();
  });
});

describe('the stages make up prints', () => {
  it('are app/stages’ stages, in its order, read from the generated copy', () => {
    const printed = printedByMakeUp(process.cwd());
    expect(stagesNamedIn(printed)).toEqual([...STAGE_NAMES]);
    expect(readFileSync('docker/lab/lifecycle.sh', 'utf8')).not.toContain('case-lookup');
  });

  it('follow the generated copy: a stage left out of it is left out of what is printed', () => {
    const root = mkdtempSync(join(tmpdir(), 'stages-shell-'));
    try {
      cpSync('docker/lab/lifecycle.sh', join(root, 'docker/lab/lifecycle.sh'));
      const fewer = STAGE_NAMES.filter((stage) => stage !== 'decide');
      writeFileSync(join(root, STAGES_SHELL_FILE), stagesShellText(fewer));
      expect(stagesNamedIn(printedByMakeUp(root))).toEqual(fewer);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a stage missing from the text, or out of order, is told apart', () => {
    const text = 'make check STAGE=webhook   then validate, enrich,\n               record, or all';
    expect(stagesNamedIn(text)).toEqual(['webhook', 'validate', 'enrich', 'record']);
    expect(stagesNamedIn(text)).not.toEqual([...STAGE_NAMES]);
  });
});
