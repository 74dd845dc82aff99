/** The state's schemas (zod): the journal entry, the whole state answered by GET /state, the reset request. */
import { z } from 'zod';
import { BlockEntrySchema, BlockHistoryRecordSchema } from './blocklist.js';
import { CaseSchema } from './case.js';
import { IsoDateTimeSchema } from './common.js';
import { CaseModeSchema } from './control.js';
import { NotificationSchema } from './notification.js';

export const JournalEntrySchema = z
  .object({
    seq: z.number().int().min(1),
    at: IsoDateTimeSchema,
    method: z.string(),
    path: z.string(),
    status: z.number().int(),
  })
  .meta({ id: 'JournalEntry' });
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

export const StateSchema = z
  .object({
    case_mode: CaseModeSchema,
    cases: z.array(CaseSchema),
    notifications: z.array(NotificationSchema),
    blocklist: z.array(BlockEntrySchema),
    blocklist_history: z.array(BlockHistoryRecordSchema),
    journal: z.array(JournalEntrySchema),
    /**
     * When this state began, on the service clock: the service's start or its last reset. Whatever was
     * received before it is gone; a reader that judges a run that began earlier cannot judge it from this state.
     */
    since: IsoDateTimeSchema,
    /** The service clock at the answer. Last in the JSON (app/api/store/store.ts, stateParts). */
    now: IsoDateTimeSchema,
  })
  .meta({ id: 'State' });
export type State = z.infer<typeof StateSchema>;

/** Reset takes exactly `{}`: a stray field is more likely a mistake than a wish. */
export const ResetRequestSchema = z.strictObject({}).meta({ id: 'ResetRequest' });
export const ResetResponseSchema = z
  .object({ reset: z.literal(true), case_mode: z.literal('healthy') })
  .meta({ id: 'ResetResponse' });
