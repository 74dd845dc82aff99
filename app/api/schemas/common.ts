/** Schemas the mock API's resources share (zod): times, event ids, addresses, service-owned fields. */
import { z } from 'zod';
import { EVENT_ID_MAX_LENGTH } from '../../workflow/constants.js';

export const IsoDateTimeSchema = z.iso.datetime();
export const EventIdSchema = z.string().min(1).max(EVENT_ID_MAX_LENGTH);
/**
 * An IPv4 or IPv6 address, as zod checks it. The document states it as `format: ipv4 | ipv6` (the
 * formats every OpenAPI tool knows); test/contract checks zod and those formats agree on a table.
 */
export const IpAddressSchema = z
  .union([z.ipv4(), z.ipv6()], { error: 'must be an IPv4 or IPv6 address' })
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
