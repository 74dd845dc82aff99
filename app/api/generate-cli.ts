/**
 * Writes the console's copy of the mock API's OpenAPI document, app/console/mock-api-openapi.generated.ts:
 *   npx tsx app/api/generate-cli.ts [root]
 * test/api/openapi-copy.test.ts fails when the committed file is not what this writes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPENAPI_COPY_FILE, openApiCopyText } from './openapi-copy.js';

const root = process.argv[2] ?? '.';
writeFileSync(join(root, OPENAPI_COPY_FILE), await openApiCopyText());
console.log(`wrote ${join(root, OPENAPI_COPY_FILE)}`);
