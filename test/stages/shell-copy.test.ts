/**
 * The lab's shell cannot import app/stages: what `make up` prints as the stages to check
 * (docker/lab/lifecycle.sh, where_things_are) is held equal to the declaration, in its order.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STAGE_NAMES } from '../../app/stages/stages.js';

/** The stages the text names, from `STAGE=<first>   then a, b, ...` to `or all`. */
function stagesNamedIn(script: string): string[] {
  const match = /STAGE=([a-z-]+)\s+then\s+([\s\S]*?),?\s+or all/.exec(script);
  if (!match) return [];
  const rest = (match[2] ?? '').split(/,\s*/).map((name) => name.trim());
  return [match[1] ?? '', ...rest].filter((name) => name !== '');
}

describe('the stages the lab prints', () => {
  it('are app/stages’ stages, in its order', () => {
    expect(stagesNamedIn(readFileSync('docker/lab/lifecycle.sh', 'utf8'))).toEqual([...STAGE_NAMES]);
  });

  it('a stage missing from the text, or out of order, is told apart', () => {
    const text = 'make check STAGE=webhook   then validate, enrich,\n               record, or all';
    expect(stagesNamedIn(text)).toEqual(['webhook', 'validate', 'enrich', 'record']);
    expect(stagesNamedIn(text)).not.toEqual([...STAGE_NAMES]);
  });
});
