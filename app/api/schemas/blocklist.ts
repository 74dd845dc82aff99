/** The blocklist's request and entry schemas (zod), which the routes validate with and the document shows. */
import { z } from 'zod';
import { LAB_ADDRESS } from '../../workflow/constants.js';
import { EventIdSchema, IpAddressSchema, IsoDateTimeSchema } from './common.js';
import { ErrorBodySchema } from './error.js';

export const BLOCKABLE_ADDRESS = LAB_ADDRESS;

const ExpiresMinutesSchema = z.number().int().min(1).max(60);

/** A closed body: an unknown field is refused (422), never dropped. */
export const BlockRequestSchema = z
  .strictObject({ ip: IpAddressSchema, event_id: EventIdSchema, expires_minutes: ExpiresMinutesSchema })
  .meta({ id: 'BlockRequest' });
export type BlockRequest = z.infer<typeof BlockRequestSchema>;

export const BlockEntrySchema = z
  .object({
    ip: IpAddressSchema,
    event_id: EventIdSchema,
    expires_minutes: ExpiresMinutesSchema,
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

/** Blocked with the exact entry, or not blocked (and then no entry). */
export const BlockLookupSchema = z
  .union([
    z.object({ ip: IpAddressSchema, blocked: z.literal(true), entry: BlockEntrySchema }),
    z.object({ ip: IpAddressSchema, blocked: z.literal(false) }),
  ])
  .meta({ id: 'BlockLookup' });

export const UnblockSchema = z
  .object({
    ip: IpAddressSchema,
    removed: z.literal(true),
    blocked: z.literal(false),
    entry: BlockEntrySchema,
  })
  .meta({ id: 'Unblock' });

export const AlreadyBlockedSchema = ErrorBodySchema.extend({ entry: BlockEntrySchema }).meta({
  id: 'AlreadyBlocked',
});
