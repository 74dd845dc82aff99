import { z } from 'zod';
import { IsoDateTimeSchema } from './common.js';

export const CASE_MODES = ['healthy', 'failed', 'fail_next_write'] as const;
export const CaseModeSchema = z.enum(CASE_MODES);
export type CaseMode = z.infer<typeof CaseModeSchema>;

export const CaseModeRequestSchema = z.object({ mode: CaseModeSchema }).meta({ id: 'CaseModeRequest' });
export const CaseModeResponseSchema = z
  .object({ case_mode: CaseModeSchema, previous_mode: CaseModeSchema })
  .meta({ id: 'CaseModeResponse' });

export const ClockRequestSchema = z
  .object({ advance_minutes: z.number().int().min(1).max(1440) })
  .meta({ id: 'ClockRequest' });
export const ClockResponseSchema = z.object({ now: IsoDateTimeSchema }).meta({ id: 'ClockResponse' });
