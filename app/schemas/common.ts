import { isIP } from 'node:net';
import { z } from 'zod';
import { EVENT_ID_MAX_LENGTH } from '../workflow/constants.js';

export const IsoDateTimeSchema = z.iso.datetime();
export const EventIdSchema = z.string().min(1).max(EVENT_ID_MAX_LENGTH);
export const IpAddressSchema = z
  .string()
  .refine((value) => isIP(value) !== 0, 'must be an IPv4 or IPv6 address')
  .meta({ description: 'An IPv4 or IPv6 address' });

/** Any JSON object the workflow records (evidence, verification, ...): kept as sent. */
export const RecordObjectSchema = z.record(z.string(), z.unknown());

/** Fields the service owns: a client may send them, the service's values stand. */
export const SERVICE_OWNED_FIELDS = [
  'id',
  'status',
  'accepted_at',
  'created_at',
  'updated_at',
  'revision',
] as const;
