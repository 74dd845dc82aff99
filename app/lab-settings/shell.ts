/**
 * The host scripts' copy of ./settings.ts: docker/lab/settings.generated.sh, sourced by docker/lab/values.sh.
 * Each setting's DEFAULT_<NAME> and its check function, the lab's image, and ./names.ts: the lab-name rule, the
 * report files' names and the history's bound. Pure: ./generate-cli.ts writes it,
 * test/lab-settings/shell.test.ts fails when the committed file is not this text.
 */
import {
  HISTORY_FILE,
  HISTORY_KEPT,
  LAB_NAME_PATTERN,
  LAB_NAME_WORDS,
  REPORT_FILE,
  RUNS_FILE,
} from './names.js';
import {
  CORES_PATTERN,
  LAB_IMAGE,
  LAB_SETTINGS,
  LAB_VERSION,
  type LabSetting,
  WHOLE_PATTERN,
} from './settings.js';

/** Where the shell's copy lives, from the checkout's root. */
export const SHELL_FILE = 'docker/lab/settings.generated.sh';
export const GENERATE_COMMAND = 'npx tsx app/lab-settings/generate-cli.ts';

/** A value the shell may hold unquoted, and words it may hold inside double quotes. */
const PLAIN = /^[A-Za-z0-9._:/-]+$/;
const SAYABLE = /^[^"$`\\]*$/;

function plain(text: string | number): string {
  const value = String(text);
  if (!PLAIN.test(value)) throw new Error(`${value} is not a value the shell copy can hold unquoted`);
  return value;
}

/** Text the shell may hold inside single quotes. */
function quotable(text: string): string {
  if (text.includes("'")) throw new Error(`${text} has a quote the shell copy cannot hold`);
  return text;
}

function sayable(text: string): string {
  if (!SAYABLE.test(text)) throw new Error(`${text} has a character the shell would expand`);
  return text;
}

/** `die "NAME=$1 <message>..."`: an account after a colon (a caller may give a fuller one), or more words. */
function dieLine(setting: LabSetting): string {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's own ${2:+ $2}, not a template.
  const tail = setting.account === undefined ? '${2:+ $2}' : `: \${2:-${sayable(setting.account)}}`;
  return `die "${setting.name}=$1 ${sayable(setting.message)}${tail}"`;
}

function checkFunction(setting: LabSetting): string[] {
  const more = setting.account === undefined ? '[MORE]' : '[ACCOUNT]';
  if (setting.rule === 'word') {
    return [
      `# ${setting.shellCheck} VALUE ${more}: ${setting.words.join(' or ')}, else dies.`,
      `${setting.shellCheck}() {`,
      `  case "$1" in ${setting.words.map(plain).join(' | ')}) ;; *) ${dieLine(setting)} ;; esac`,
      '}',
    ];
  }
  if (setting.rule === 'cores') {
    // The whole part below max, or max itself with a fraction of zeros only.
    return [
      `# ${setting.shellCheck} VALUE ${more}: a number of cores from 0 to ${setting.max}, at most two decimals, else dies.`,
      `${setting.shellCheck}() {`,
      `  if [[ $1 =~ ${CORES_PATTERN.source} ]]; then`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's own ${1%%.*}, not a template.
      '    local whole=${1%%.*} fraction=${1#*.}',
      `    if [ "$whole" -lt ${plain(setting.max)} ] || { [ "$whole" -eq ${plain(setting.max)} ] && { [ "$1" = "$whole" ] || [[ $fraction =~ ^0+$ ]]; }; }; then return 0; fi`,
      '  fi',
      `  ${dieLine(setting)}`,
      '}',
    ];
  }
  return [
    `# ${setting.shellCheck} VALUE ${more}: a whole number from ${setting.min} to ${setting.max}, else dies.`,
    `${setting.shellCheck}() {`,
    `  if [[ $1 =~ ${WHOLE_PATTERN.source} ]] && [ "$1" -ge ${plain(setting.min)} ] && [ "$1" -le ${plain(setting.max)} ]; then return 0; fi`,
    `  ${dieLine(setting)}`,
    '}',
  ];
}

/** The text of docker/lab/settings.generated.sh. */
export function shellText(): string {
  const lines = [
    '# shellcheck shell=bash',
    `# generated: do not edit. Written by \`${GENERATE_COMMAND}\` from app/lab-settings/settings.ts, the`,
    "# one declaration of a lab's settings; sourced by docker/lab/values.sh (the checks need common.sh's die).",
    '',
  ];
  for (const setting of LAB_SETTINGS) {
    lines.push(
      `# ${setting.name}: ${sayable(setting.about)}.`,
      `DEFAULT_${setting.name}=${plain(setting.default)}`,
      ...checkFunction(setting),
      '',
    );
  }
  lines.push(
    "# This checkout's version (docker/lab/update.sh compares a lab's with it; CHANGELOG.md says what each changed).",
    `LAB_VERSION=${plain(LAB_VERSION)}`,
    "# The lab's own image (the mock API, the console, the tools, the class board).",
    `LAB_IMAGE=${plain(LAB_IMAGE)}`,
    '',
    "# A lab's name (LAB=, a class's roster), and the rule in words for the line that refuses one (./names.ts).",
    `LAB_NAME_PATTERN='${quotable(LAB_NAME_PATTERN.source)}'`,
    `LAB_NAME_WORDS="${sayable(LAB_NAME_WORDS)}"`,
    "# A lab's report files: the checker's last report, its history, the tutor's runs; the host's copy of the",
    '# history keeps the newest HISTORY_KEPT lines.',
    `REPORT_FILE=${plain(REPORT_FILE)}`,
    `HISTORY_FILE=${plain(HISTORY_FILE)}`,
    `RUNS_FILE=${plain(RUNS_FILE)}`,
    `HISTORY_KEPT=${plain(HISTORY_KEPT)}`,
  );
  return `${lines.join('\n')}\n`;
}
