/**
 * The names the seed leaves open, and the trainee's way to tell the checker theirs. Defaults are the
 * reference workflow's names (docs/workflow-protocol.md); a mapping file overrides any part.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';

const JsonObject = z.record(z.string(), z.unknown());

export const MappingSchema = z
  .object({
    case: z
      .object({
        /** Dotted path of the case field that shows the final action. */
        final_action: z.string().min(1).default('final_action'),
        /** Its value after a block, and after the no-action branch. */
        blocked: z.unknown().default('blocked'),
        none: z.unknown().default('none'),
        /** Dotted path of the verification result, and the value that means "verified blocked". */
        verification: z.string().min(1).default('verification.blocked'),
        verified: z.unknown().default(true),
        /** Dotted path of the rollback's recovery time (a number). */
        recovery_time: z.string().min(1).default('rollback.recovery_seconds'),
      })
      .strict()
      .prefault({}),
    approval: z
      .object({
        /** The body the checker POSTs to the resume URL; "{approver}" is replaced by the approver's name. */
        approve: JsonObject.default({ decision: 'approve', approver: '{approver}' }),
        reject: JsonObject.default({ decision: 'reject', approver: '{approver}' }),
      })
      .strict()
      .prefault({}),
    /** The body of the rollback trigger; "{event_id}" and "{source_ip}" are replaced. */
    rollback_payload: JsonObject.default({ event_id: '{event_id}', source_ip: '{source_ip}' }),
  })
  .strict();
export type Mapping = z.infer<typeof MappingSchema>;

export const DEFAULT_MAPPING: Mapping = MappingSchema.parse({});

export async function loadMapping(path: string | undefined): Promise<Mapping> {
  if (path === undefined) return DEFAULT_MAPPING;
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new Error(`--mapping ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = MappingSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`--mapping ${path}: ${issue?.path.join('.') || '(top)'}: ${issue?.message}`);
  }
  return parsed.data;
}

/** Replaces "{name}" in every string of a JSON template. */
export function fillTemplate(template: unknown, values: Record<string, string>): unknown {
  if (typeof template === 'string') {
    return template.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
  }
  if (Array.isArray(template)) return template.map((item) => fillTemplate(item, values));
  if (typeof template === 'object' && template !== null) {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fillTemplate(v, values)]));
  }
  return template;
}
