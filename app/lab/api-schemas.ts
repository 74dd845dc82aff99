/**
 * The parts of the mock API's answers that the reference workflow and the verdicts read. Objects are
 * loose: the contract lets the service add fields, and a verdict must not break on an extra one.
 */
import { z } from 'zod';

export const HealthSchema = z.looseObject({ case_mode: z.string() });
export type Health = z.infer<typeof HealthSchema>;

export const IdentitySchema = z.looseObject({
  user: z.string(),
  role: z.string().optional(),
  critical: z.boolean().optional(),
});
export type Identity = z.infer<typeof IdentitySchema>;

export const BlockEntrySchema = z.looseObject({
  ip: z.string(),
  event_id: z.string(),
  expires_minutes: z.number(),
  created_at: z.string().optional(),
  expires_at: z.string(),
});
export type BlockEntry = z.infer<typeof BlockEntrySchema>;

export const BlockLookupSchema = z.looseObject({ blocked: z.boolean(), entry: BlockEntrySchema.optional() });

export const AlreadyBlockedSchema = z.looseObject({
  error: z.looseObject({ code: z.literal('already_blocked') }),
  entry: BlockEntrySchema,
});

export const HistoryEntrySchema = z.looseObject({
  ip: z.string(),
  event_id: z.string(),
  removed_reason: z.string(),
  removed_at: z.string().optional(),
});

export const CaseSchema = z.looseObject({
  event_id: z.string(),
  source_ip: z.string().optional(),
  final_action: z.string().nullish(),
  result: z.string().nullish(),
  approver: z.string().nullish(),
  revision: z.number().optional(),
});
export type CaseRecord = z.infer<typeof CaseSchema>;

export const NotificationSchema = z.looseObject({
  id: z.string().optional(),
  channel: z.string().nullish(),
  event_id: z.string().nullish(),
  resume_url: z.string().optional(),
});
export type Notification = z.infer<typeof NotificationSchema>;

export const JournalEntrySchema = z.looseObject({
  seq: z.number(),
  at: z.string(),
  method: z.string(),
  path: z.string(),
  status: z.number(),
});
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

export const StateSchema = z.looseObject({
  case_mode: z.string(),
  cases: z.array(CaseSchema),
  notifications: z.array(NotificationSchema),
  blocklist: z.array(BlockEntrySchema),
  blocklist_history: z.array(HistoryEntrySchema),
  journal: z.array(JournalEntrySchema),
});
export type State = z.infer<typeof StateSchema>;
