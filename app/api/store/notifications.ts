/** The notifications the workflow sent, in order, as the mock API records them. */
import { SERVICE_OWNED_FIELDS } from '../schemas/common.js';
import type { Notification, NotifyRequest } from '../schemas/notification.js';
import { iso } from './clock.js';
import { done, type Outcome, refused } from './outcome.js';

export class NotificationStore {
  readonly #items: Notification[] = [];

  /** `onChange`: told of every change, so the store's state version moves (store.ts). */
  constructor(
    readonly limit: number,
    private readonly onChange: () => void = () => {},
  ) {}

  get size(): number {
    return this.#items.length;
  }

  acceptNotification(request: NotifyRequest, now: number): Outcome<Notification> {
    if (this.#items.length >= this.limit) {
      return refused({ kind: 'notification_limit_reached', limit: this.limit });
    }
    const fields: Record<string, unknown> = { ...request };
    for (const key of SERVICE_OWNED_FIELDS) delete fields[key];
    const record: Notification = {
      id: `ntf-${String(this.#items.length + 1).padStart(6, '0')}`,
      status: 'accepted',
      accepted_at: iso(now),
      ...fields,
      message: request.message,
    };
    this.#items.push(record);
    this.onChange();
    return done(record);
  }

  list(): Notification[] {
    return [...this.#items];
  }

  clear(): void {
    this.#items.length = 0;
    this.onChange();
  }
}
