/** The fixed identity directory, with lab-admin as the reserved critical identity. */
import type { Identity } from './identity.js';

/** The fixed directory: `lab-admin` is the reserved, critical test identity; the rest are for exercises. */
const DIRECTORY: readonly Identity[] = [
  {
    user: 'lab-admin',
    role: 'administrator',
    critical: true,
    display_name: 'Lab Administrator',
    department: 'IT Operations',
    status: 'active',
    mfa_enrolled: true,
  },
  {
    user: 'alice.analyst',
    role: 'analyst',
    critical: false,
    display_name: 'Alice Analyst',
    department: 'Security Operations',
    status: 'active',
    mfa_enrolled: true,
  },
  {
    user: 'bob.developer',
    role: 'developer',
    critical: false,
    display_name: 'Bob Developer',
    department: 'Engineering',
    status: 'active',
    mfa_enrolled: false,
  },
  {
    user: 'svc-backup',
    role: 'service_account',
    critical: false,
    display_name: 'Backup Service Account',
    department: 'IT Operations',
    status: 'active',
    mfa_enrolled: false,
  },
  {
    user: 'former.employee',
    role: 'contractor',
    critical: false,
    display_name: 'Former Employee',
    department: 'Finance',
    status: 'disabled',
    mfa_enrolled: false,
  },
];

const BY_NAME = new Map(DIRECTORY.map((identity) => [identity.user, identity]));

export function findIdentity(user: string): Identity | undefined {
  return BY_NAME.get(user);
}

export function listIdentities(): readonly Identity[] {
  return DIRECTORY;
}
