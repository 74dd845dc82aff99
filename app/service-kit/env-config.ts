/**
 * A service's settings, read once: each from its environment variable (or a value the caller gives over
 * it, such as a flag), an empty one counted as unset, parsed by the service's zod schema. A bad value is
 * one line naming where it came from: `invalid NAME "value": what is wrong`.
 */
import type { z } from 'zod';

type Env = Readonly<Record<string, string | undefined>>;

export interface EnvSettings {
  /** The schema's key → the environment variable that sets it. */
  variables: Readonly<Record<string, string>>;
  /** Values that win over the environment's (an undefined one does not). */
  overrides?: Readonly<Record<string, string | undefined>>;
  /** How a key is named in the error line when its variable alone does not say it. */
  labels?: Readonly<Record<string, string>>;
  /** Keys whose value the error line never shows, not even a wrong one. */
  hidden?: readonly string[];
}

export type EnvConfigResult<T> = { ok: true; config: T } | { ok: false; error: string };

export function parseEnvConfig<Schema extends z.ZodType>(
  schema: Schema,
  env: Env,
  settings: EnvSettings,
): EnvConfigResult<z.output<Schema>> {
  const { variables, overrides = {}, labels = {}, hidden = [] } = settings;
  const raw: Record<string, string> = {};
  for (const [key, name] of Object.entries(variables)) {
    const value = overrides[key] ?? env[name];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, config: parsed.data };
  const issue = parsed.error.issues[0];
  const key = String(issue?.path[0] ?? '');
  const name = Object.hasOwn(variables, key) ? (labels[key] ?? variables[key]) : 'configuration';
  const shown = hidden.includes(key) ? '(not shown)' : JSON.stringify(raw[key] ?? '');
  return { ok: false, error: `invalid ${name} ${shown}: ${issue?.message ?? 'invalid'}` };
}
