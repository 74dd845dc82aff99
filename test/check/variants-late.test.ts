/** The second half of the broken variants (see variants-early.test.ts). */
import { variantTests } from './variant-tests.js';

variantTests([
  'block-before-approval',
  'record-without-approver',
  'second-case-on-duplicate',
  'block-repeated-after-connector-failure',
  'rollback-without-verifying-absence',
]);
