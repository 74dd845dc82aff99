/**
 * The rules of ./settings.ts applied: in TypeScript (a zod schema, or a value read from the environment),
 * and as the n8n expression the workflow reads a whole-number setting with. The shell's copy of the same
 * rules is written by ./shell.ts.
 */
import { z } from 'zod';
import {
  CORES_PATTERN,
  type CoresSetting,
  type LabSetting,
  WHOLE_PATTERN,
  type WholeSetting,
  type WordSetting,
} from './settings.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A bad value of a lab setting, in the one line the shell also says. */
export class SettingError extends Error {
  override name = 'SettingError';
}

/** The line a bad value gets: `NAME=value <message>[: <account>]`, word for word the shell's. */
export function settingError(setting: LabSetting, value: string): string {
  return `${setting.name}=${value} ${setting.message}${setting.account === undefined ? '' : `: ${setting.account}`}`;
}

function wholeValue(setting: WholeSetting, text: string): number | undefined {
  if (!WHOLE_PATTERN.test(text)) return undefined;
  const value = Number(text);
  return value >= setting.min && value <= setting.max ? value : undefined;
}

function wordValue<Word extends string>(setting: WordSetting<Word>, text: string): Word | undefined {
  return setting.words.find((word) => word === text);
}

function coresValue(setting: CoresSetting, text: string): number | undefined {
  if (!CORES_PATTERN.test(text)) return undefined;
  const value = Number(text);
  return value <= setting.max ? value : undefined;
}

/** A setting's value of a text, or undefined when the text breaks its rule. */
function settingValue(setting: LabSetting, text: string): number | string | undefined {
  if (setting.rule === 'whole') return wholeValue(setting, text);
  if (setting.rule === 'cores') return coresValue(setting, text);
  return wordValue(setting, text);
}

/** A zod schema of a setting's text: its value, or an issue `<text> <message>` (a flag's, say). */
export function settingSchema(setting: WholeSetting | CoresSetting): z.ZodType<number, string>;
export function settingSchema<Word extends string>(setting: WordSetting<Word>): z.ZodType<Word, string>;
export function settingSchema(setting: LabSetting): z.ZodType<number | string, string> {
  return z.string().transform((text, ctx) => {
    const value = settingValue(setting, text);
    if (value !== undefined) return value;
    ctx.addIssue({ code: 'custom', message: `${text} ${setting.message}` });
    return z.NEVER;
  });
}

/** A setting from the environment: unset or empty is its default; a bad value throws one SettingError line. */
export function readSetting(setting: WholeSetting | CoresSetting, env: Env): number;
export function readSetting<Word extends string>(setting: WordSetting<Word>, env: Env): Word;
export function readSetting(setting: LabSetting, env: Env): number | string;
export function readSetting(setting: LabSetting, env: Env): number | string {
  const text = env[setting.name];
  if (text === undefined || text === '') return setting.default;
  const value = settingValue(setting, text);
  if (value === undefined) throw new SettingError(settingError(setting, text));
  return value;
}

/**
 * The n8n expression (without `{{ }}`) of a whole-number setting read from n8n's environment: the same
 * rule, and the default in place of a value that breaks it (the host scripts refuse one before n8n starts).
 */
export function n8nWholeExpression(setting: WholeSetting): string {
  const raw = `$env.${setting.name}`;
  return `/${WHOLE_PATTERN.source}/.test(${raw}) && Number(${raw}) >= ${setting.min} && Number(${raw}) <= ${setting.max} ? Number(${raw}) : ${setting.default}`;
}
