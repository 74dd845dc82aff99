/**
 * The parts of the mock API's answers that the reference workflow and the verdicts read. Objects are
 * loose: the contract lets the service add fields, and a verdict must not break on an extra one.
 */
import { z } from 'zod';

export const HealthReadingSchema = z.looseObject({ case_mode: z.string() });
export type HealthReading = z.infer<typeof HealthReadingSchema>;

export const IdentityReadingSchema = z.looseObject({
  user: z.string(),
  role: z.string().optional(),
  critical: z.boolean().optional(),
});
export type IdentityReading = z.infer<typeof IdentityReadingSchema>;

export const BlockEntryReadingSchema = z.looseObject({
  ip: z.string(),
  event_id: z.string(),
  expires_minutes: z.number(),
  created_at: z.string().optional(),
  expires_at: z.string(),
});
export type BlockEntryReading = z.infer<typeof BlockEntryReadingSchema>;

export const BlockLookupReadingSchema = z.looseObject({
  blocked: z.boolean(),
  entry: BlockEntryReadingSchema.optional(),
});

export const AlreadyBlockedReadingSchema = z.looseObject({
  error: z.looseObject({ code: z.literal('already_blocked') }),
  entry: BlockEntryReadingSchema,
});

export const HistoryEntryReadingSchema = z.looseObject({
  ip: z.string(),
  event_id: z.string(),
  removed_reason: z.string(),
  removed_at: z.string().optional(),
});

export const CaseReadingSchema = z.looseObject({
  event_id: z.string(),
  source_ip: z.string().optional(),
  final_action: z.string().nullish(),
  result: z.string().nullish(),
  approver: z.string().nullish(),
  revision: z.number().optional(),
});
export type CaseReading = z.infer<typeof CaseReadingSchema>;

export const NotificationReadingSchema = z.looseObject({
  id: z.string().optional(),
  channel: z.string().nullish(),
  event_id: z.string().nullish(),
  resume_url: z.string().optional(),
});
export type NotificationReading = z.infer<typeof NotificationReadingSchema>;

export const JournalEntryReadingSchema = z.looseObject({
  seq: z.number(),
  at: z.string(),
  method: z.string(),
  path: z.string(),
  status: z.number(),
});
export type JournalEntryReading = z.infer<typeof JournalEntryReadingSchema>;

export const StateReadingSchema = z.looseObject({
  case_mode: z.string(),
  cases: z.array(CaseReadingSchema),
  notifications: z.array(NotificationReadingSchema),
  blocklist: z.array(BlockEntryReadingSchema),
  blocklist_history: z.array(HistoryEntryReadingSchema),
  journal: z.array(JournalEntryReadingSchema),
  /** When the state began (the service's start or its last reset); absent from a mock API before 1.2. */
  since: z.string().optional(),
});
export type StateReading = z.infer<typeof StateReadingSchema>;
