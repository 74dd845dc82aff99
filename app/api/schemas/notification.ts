/** The notification schemas (zod): what a workflow sends and the record the mock API keeps. */
import { z } from 'zod';
import { IsoDateTimeSchema } from './common.js';

/** The optional fields a notification names; named once for the request and the record answered. */
const notificationFields = {
  recipient: z.string().optional(),
  subject: z.string().optional(),
  event_id: z.string().nullable().optional(),
  severity: z.string().optional(),
  channel: z.string().optional(),
};

/** Open by design: further top-level fields are kept as sent (the service-owned ones are ignored). */
export const NotifyRequestSchema = z
  .looseObject({ message: z.string().min(1), ...notificationFields })
  .meta({ id: 'NotifyRequest' });
export type NotifyRequest = z.infer<typeof NotifyRequestSchema>;

export const NotificationSchema = z
  .looseObject({
    id: z.string().regex(/^ntf-\d{6}$/),
    status: z.literal('accepted'),
    accepted_at: IsoDateTimeSchema,
    message: z.string().min(1),
    ...notificationFields,
  })
  .meta({ id: 'Notification' });
export type Notification = z.infer<typeof NotificationSchema>;
