/**
 * The console's copy of the mock API's OpenAPI document, app/console/mock-api-openapi.generated.ts, written from
 * the document the mock API serves (its routes' own schemas): the console serves the contract to the browser
 * without building a mock API in its process. test/api/openapi-copy.test.ts fails when the committed copy is
 * not what this writes.
 */
import { createApp, defaultDeps } from './app.js';

export const OPENAPI_COPY_FILE = 'app/console/mock-api-openapi.generated.ts';
export const OPENAPI_GENERATE_COMMAND = 'npx tsx app/api/generate-cli.ts';

/** The document as GET /openapi.json answers it, without `servers` (the address it was fetched from). */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const answer = await createApp(defaultDeps()).request('http://localhost/openapi.json', {
    headers: { host: 'localhost' },
  });
  const { servers: _servers, ...document } = (await answer.json()) as Record<string, unknown>;
  return document;
}

/** The copy's text: a head comment, then the document as one line of JSON (a TypeScript value). */
export async function openApiCopyText(): Promise<string> {
  return [
    `/** The mock API's OpenAPI document without its servers. Generated: do not edit. Written by \`${OPENAPI_GENERATE_COMMAND}\` from app/api. */`,
    `export const MOCK_API_OPENAPI: Record<string, unknown> = ${JSON.stringify(await openApiDocument())};`,
    '',
  ].join('\n');
}
