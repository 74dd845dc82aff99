/**
 * A few mistakes of variants.ts as real n8n export JSON: an override of one node of the generated
 * workflows. `write-variant-cli.ts` writes them for the e2e check on the pinned n8n.
 */
import { APPROVAL_THRESHOLD } from '../workflow/constants.js';
import { exportText, iff, type Overrides } from '../workflow/n8n/build.js';
import { responseWorkflow } from '../workflow/n8n/response.js';
import { rollbackWorkflow } from '../workflow/n8n/rollback.js';
import { DECIDE } from '../workflow/n8n/stage-nodes.js';
import type { ReferenceVariantName } from './variants.js';

/** Which stage each breaks is declared once, in variants.ts (REFERENCE_VARIANTS[name].breaks). */
export const N8N_VARIANTS: Partial<
  Record<ReferenceVariantName, { response?: Overrides; rollback?: Overrides }>
> = {
  [`threshold-above-${APPROVAL_THRESHOLD}`]: {
    response: {
      [DECIDE]: (node) => ({
        ...node,
        parameters: iff(
          DECIDE,
          node.position,
          `$('Validate').first().json.alert.confidence > ${APPROVAL_THRESHOLD}`,
          'Duplicate delivery?',
          'Below threshold',
        ).parameters,
      }),
    },
  },
  'block-repeated-after-connector-failure': {
    response: { 'Notify owner': { next: [['Block']] } },
  },
  'rollback-without-verifying-absence': {
    rollback: {
      'Unblocked?': (node) => ({ ...node, next: [['Build rollback record'], ['Stop: unblock failed']] }),
    },
  },
};

/** The response and rollback export text of a variant (the reference's, for null). */
export function variantExports(name: ReferenceVariantName | null): Record<string, string> {
  const variant = name === null ? undefined : N8N_VARIANTS[name];
  if (name !== null && variant === undefined) throw new Error(`no n8n variant ${name}`);
  return {
    'suspicious-login-response.json': exportText(responseWorkflow(variant?.response)),
    'suspicious-login-rollback.json': exportText(rollbackWorkflow(variant?.rollback)),
  };
}
