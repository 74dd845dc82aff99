/**
 * The lab settings' one rule, in its three languages: the host scripts' copy (docker/lab/settings.generated.sh)
 * is what app/lab-settings writes, and its check functions, TypeScript's readSetting and the n8n expression
 * the workflow reads the approval limit with take and refuse the same values, with the same line.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  n8nWholeExpression,
  readSetting,
  SettingError,
  settingSchema,
} from '../../app/lab-settings/rules.js';
import {
  APPROVAL_TIMEOUT_SECONDS,
  LAB_IMAGE,
  LAB_SETTINGS,
  type LabSetting,
} from '../../app/lab-settings/settings.js';
import { GENERATE_COMMAND, SHELL_FILE, shellText } from '../../app/lab-settings/shell.js';

/** Values near every rule's edges (an empty value is the caller's: it means the default before any check). */
const CANDIDATES = [
  '0',
  '1',
  '59',
  '60',
  '060',
  '3600',
  '3601',
  '-1',
  '1.5',
  '1e2',
  ' 60',
  '60 ',
  '0x10',
  '123456789',
  '1234567890',
  'abc',
  'exercise',
  'Exercise',
  'demo',
  'on',
  'off',
  'ON',
  'exercise demo',
  '*',
  '0.5',
  '0.25',
  '0.125',
  '.5',
  '1.',
  '08',
  '63.99',
  '64',
  '64.00',
  '64.01',
  '65',
  '100',
];

/** What TypeScript says of a value: its value, or the error line. */
function inTypeScript(setting: LabSetting, value: string): string {
  try {
    return `ok ${readSetting(setting, { [setting.name]: value })}`;
  } catch (error) {
    if (error instanceof SettingError) return `die ${error.message}`;
    throw error;
  }
}

/** What the shell copy says of each value: `ok VALUE`, or `die <the line>`, run by bash in one process. */
function inShell(text: string, setting: LabSetting, values: readonly string[]): string[] {
  const script = [
    'set -euo pipefail',
    'die() { echo "die $*"; exit 1; }',
    text,
    `for v in "$@"; do if out=$( ${setting.shellCheck} "$v" ); then echo "ok $v"; else echo "$out"; fi; done`,
  ].join('\n');
  const out = execFileSync('bash', ['-c', script, 'bash', ...values], { encoding: 'utf8' });
  return out.split('\n').slice(0, values.length);
}

describe('docker/lab/settings.generated.sh', () => {
  it(`is what app/lab-settings writes (else: ${GENERATE_COMMAND})`, () => {
    const committed = readFileSync(SHELL_FILE, 'utf8');
    expect(committed, `stale: run ${GENERATE_COMMAND}`).toBe(shellText());
    expect(committed).toMatch(/^# generated: do not edit\./m);
    expect(committed).toContain(`LAB_IMAGE=${LAB_IMAGE}\n`);
    for (const setting of LAB_SETTINGS)
      expect(committed).toContain(`DEFAULT_${setting.name}=${setting.default}\n`);
  });

  it.each(LAB_SETTINGS.map((s) => [s.name, s] as const))(
    '%s: the shell check takes and refuses what TypeScript does, in the same words',
    (_name, setting) => {
      const shell = inShell(shellText(), setting, CANDIDATES);
      expect(shell).toEqual(
        CANDIDATES.map((v) => {
          const ts = inTypeScript(setting, v);
          // The shell says the value as given; TypeScript gives the parsed number.
          return ts.startsWith('ok ') ? `ok ${v}` : ts;
        }),
      );
      expect(shell.filter((line) => line.startsWith('ok ')).length).toBeGreaterThan(0);
      expect(shell.filter((line) => line.startsWith('die ')).length).toBeGreaterThan(0);
    },
  );

  it('the check fails on a shell copy with another rule', () => {
    const wider = shellText().replace('-le 3600', '-le 7200');
    const values = ['3601', '3600'];
    expect(inShell(wider, APPROVAL_TIMEOUT_SECONDS, values)).not.toEqual(
      values.map((v) => inTypeScript(APPROVAL_TIMEOUT_SECONDS, v).replace(/^ok \d+$/, `ok ${v}`)),
    );
  });

  it("keeps the lines trainers see: a fuller account of the modes, more words after the limit's", () => {
    const text = shellText();
    const script = `die() { echo "$*"; exit 1; }\n${text}\n( check_lab_mode solution 'exercise (the default) or demo' ) || true`;
    expect(execFileSync('bash', ['-c', script], { encoding: 'utf8' })).toBe(
      'LAB_MODE=solution is not a lab mode: exercise (the default) or demo\n',
    );
    const more = `die() { echo "$*"; exit 1; }\n${text}\n( check_lab_starters maybe '(make starter: why)' ) || true`;
    expect(execFileSync('bash', ['-c', more], { encoding: 'utf8' })).toBe(
      'LAB_STARTERS=maybe is not on or off (make starter: why)\n',
    );
  });
});

describe('the approval limit in n8n', () => {
  /** The Settings node's expression, run as n8n runs it (a JavaScript expression over $env). */
  const evaluate = (expression: string, value: string | undefined): unknown =>
    new Function('$env', `return (${expression});`)({ APPROVAL_TIMEOUT_SECONDS: value });

  it('takes what TypeScript takes, and the default in place of anything else', () => {
    const expression = n8nWholeExpression(APPROVAL_TIMEOUT_SECONDS);
    for (const value of [...CANDIDATES, undefined]) {
      const ts = value === undefined ? 'unset' : inTypeScript(APPROVAL_TIMEOUT_SECONDS, value);
      const expected = ts.startsWith('ok ') ? Number(ts.slice(3)) : APPROVAL_TIMEOUT_SECONDS.default;
      expect([value, evaluate(expression, value)]).toEqual([value, expected]);
    }
  });

  it('an expression with another rule is told apart', () => {
    const loose = n8nWholeExpression(APPROVAL_TIMEOUT_SECONDS).replace(/^\/.*?\/\.test\([^)]*\) && /, '');
    expect(evaluate(loose, '1.5')).not.toBe(APPROVAL_TIMEOUT_SECONDS.default);
  });
});

describe('a flag given the approval limit', () => {
  it('is read by the same rule, the value in its message', () => {
    const schema = settingSchema(APPROVAL_TIMEOUT_SECONDS);
    expect(schema.parse('45')).toBe(45);
    const refused = schema.safeParse('0.5');
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe('0.5 is not a whole number of seconds from 1 to 3600');
  });
});
