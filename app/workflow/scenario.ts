/**
 * The lab's scenario facts, declared once: who the alerts are about, who approves them in the lab's own
 * tools, and the alert's shape. The acceptance matrix, the stage checker and the console read them here,
 * so none of them imports another.
 */
import { LAB_ADDRESS } from './constants.js';

export { LAB_ADDRESS };

/** The identity the alerts name: a critical administrator in the mock API's fixed directory. */
export const LAB_USER = 'lab-admin';
/** The approver name the acceptance matrix answers approval requests as. */
export const APPROVER = 'acceptance-approver';
/** The failed attempts every lab alert reports. */
export const FAILED_ATTEMPTS = 7;

/** What an alert is about; one case's fresh event id and its people. */
export interface AlertFacts {
  eventId: string;
  sourceIp: string;
  user: string;
}

/** How one alert differs from the positive one: its confidence, and whether source_ip is left out. */
export interface AlertVariant {
  confidence: number;
  omitSourceIp?: true | undefined;
}

/** The seed's alert: the seven mapped fields plus the event type. */
export function alertPayload(facts: AlertFacts, variant: AlertVariant): Record<string, unknown> {
  return {
    event_id: facts.eventId,
    event_type: 'suspicious_login',
    user: facts.user,
    ...(variant.omitSourceIp ? {} : { source_ip: facts.sourceIp }),
    failed_attempts: FAILED_ATTEMPTS,
    successful_login: true,
    confidence: variant.confidence,
    environment: 'training',
  };
}

/** The test alerts a person sends from the console, by kind. */
export const TEST_ALERT_KINDS = ['positive', 'low_confidence', 'invalid'] as const;
export type TestAlertKind = (typeof TEST_ALERT_KINDS)[number];
export const TEST_ALERTS: Record<TestAlertKind, AlertVariant> = {
  positive: { confidence: 92 },
  low_confidence: { confidence: 12 },
  invalid: { confidence: 92, omitSourceIp: true },
};
