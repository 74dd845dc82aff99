/** The control routes' schemas (zod): case connector modes, the clock's advance, their answers. */
import { z } from 'zod';
import { IsoDateTimeSchema } from './common.js';

export const CASE_MODES = ['healthy', 'failed', 'fail_next_write'] as const;
export const CaseModeSchema = z.enum(CASE_MODES);
export type CaseMode = z.infer<typeof CaseModeSchema>;

/** Closed bodies, like every fixed-shape POST: an unknown field is refused (422), never dropped. */
export const CaseModeRequestSchema = z.strictObject({ mode: CaseModeSchema }).meta({ id: 'CaseModeRequest' });
export const CaseModeResponseSchema = z
  .object({ case_mode: CaseModeSchema, previous_mode: CaseModeSchema })
  .meta({ id: 'CaseModeResponse' });

export const ClockRequestSchema = z
  .strictObject({ advance_minutes: z.number().int().min(1).max(1440) })
  .meta({ id: 'ClockRequest' });
export const ClockResponseSchema = z.object({ now: IsoDateTimeSchema }).meta({ id: 'ClockResponse' });
