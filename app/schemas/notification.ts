import { z } from 'zod';
import { IsoDateTimeSchema } from './common.js';

export const NotifyRequestSchema = z
  .looseObject({
    message: z.string().min(1),
    recipient: z.string().optional(),
    subject: z.string().optional(),
    event_id: z.string().nullable().optional(),
    severity: z.string().optional(),
    channel: z.string().optional(),
  })
  .meta({ id: 'NotifyRequest' });
export type NotifyRequest = z.infer<typeof NotifyRequestSchema>;

export const NotificationSchema = z
  .looseObject({
    id: z.string().regex(/^ntf-\d{6}$/),
    status: z.literal('accepted'),
    accepted_at: IsoDateTimeSchema,
    message: z.string().min(1),
  })
  .meta({ id: 'Notification' });
export type Notification = z.infer<typeof NotificationSchema>;
