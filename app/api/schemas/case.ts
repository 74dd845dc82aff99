/** The case schemas (zod): what a workflow writes and the case the mock API answers. */
import { z } from 'zod';
import { EventIdSchema, IsoDateTimeSchema, RecordObjectSchema } from './common.js';

/** The workflow's record fields, all optional: named once for the write and for the case answered. */
const caseRecordFields = {
  evidence: RecordObjectSchema.nullable().optional(),
  approver: z.string().nullable().optional(),
  result: z.string().optional(),
  final_action: z.string().optional(),
  verification: RecordObjectSchema.nullable().optional(),
  expiry: RecordObjectSchema.nullable().optional(),
  rollback: RecordObjectSchema.nullable().optional(),
};

/**
 * What a workflow writes. Only event_id is required. The record is open by design: further top-level
 * fields are kept as sent (the service-owned ones are ignored), so unknown fields are not refused here.
 */
export const CaseWriteSchema = z
  .looseObject({ event_id: EventIdSchema, ...caseRecordFields })
  .meta({ id: 'CaseWrite' });
export type CaseWrite = z.infer<typeof CaseWriteSchema>;

/** The case answered and stored: the fields written, plus the service's own. Open like the write. */
export const CaseSchema = z
  .looseObject({
    event_id: EventIdSchema,
    ...caseRecordFields,
    created_at: IsoDateTimeSchema,
    updated_at: IsoDateTimeSchema,
    revision: z.number().int().min(1),
  })
  .meta({ id: 'Case' });
export type Case = z.infer<typeof CaseSchema>;
