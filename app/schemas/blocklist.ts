import { z } from 'zod';
import { ErrorBodySchema } from '../errors.js';
import { LAB_ADDRESS } from '../workflow/constants.js';
import { EventIdSchema, IpAddressSchema, IsoDateTimeSchema } from './common.js';

export const BLOCKABLE_ADDRESS = LAB_ADDRESS;

export const BlockRequestSchema = z
  .object({
    ip: IpAddressSchema,
    event_id: EventIdSchema,
    expires_minutes: z.number().int().min(1).max(60),
  })
  .meta({ id: 'BlockRequest' });
export type BlockRequest = z.infer<typeof BlockRequestSchema>;

export const BlockEntrySchema = z
  .object({
    ip: z.string(),
    event_id: EventIdSchema,
    expires_minutes: z.number().int().min(1).max(60),
    created_at: IsoDateTimeSchema,
    expires_at: IsoDateTimeSchema,
  })
  .meta({ id: 'BlockEntry' });
export type BlockEntry = z.infer<typeof BlockEntrySchema>;

export const BlockHistoryRecordSchema = BlockEntrySchema.extend({
  removed_at: IsoDateTimeSchema,
  removed_reason: z.enum(['expired', 'unblocked']),
}).meta({ id: 'BlockHistoryRecord' });
export type BlockHistoryRecord = z.infer<typeof BlockHistoryRecordSchema>;

export const BlockLookupSchema = z
  .object({ ip: z.string(), blocked: z.boolean(), entry: BlockEntrySchema.optional() })
  .meta({ id: 'BlockLookup' });

export const UnblockSchema = z
  .object({ ip: z.string(), removed: z.literal(true), blocked: z.literal(false), entry: BlockEntrySchema })
  .meta({ id: 'Unblock' });

export const AlreadyBlockedSchema = ErrorBodySchema.extend({ entry: BlockEntrySchema }).meta({
  id: 'AlreadyBlocked',
});
