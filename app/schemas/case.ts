import { z } from 'zod';
import { EventIdSchema, IsoDateTimeSchema, RecordObjectSchema } from './common.js';

/** What a workflow writes. Only event_id is required; further top-level fields are kept as sent. */
export const CaseWriteSchema = z
  .looseObject({
    event_id: EventIdSchema,
    evidence: RecordObjectSchema.nullable().optional(),
    approver: z.string().nullable().optional(),
    result: z.string().optional(),
    final_action: z.string().optional(),
    verification: RecordObjectSchema.nullable().optional(),
    expiry: RecordObjectSchema.nullable().optional(),
    rollback: RecordObjectSchema.nullable().optional(),
  })
  .meta({ id: 'CaseWrite' });
export type CaseWrite = z.infer<typeof CaseWriteSchema>;

export const CaseSchema = z
  .looseObject({
    event_id: EventIdSchema,
    created_at: IsoDateTimeSchema,
    updated_at: IsoDateTimeSchema,
    revision: z.number().int().min(1),
  })
  .meta({ id: 'Case' });
export type Case = z.infer<typeof CaseSchema>;
