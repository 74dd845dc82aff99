/**
 * The console serves the mock API's contract from a copy (app/console/mock-api-openapi.generated.ts), since it
 * builds no mock API in its process. Held here: the committed copy is what app/api writes from the document
 * the mock API serves, and the console's /openapi.json is that document with the workflow's address as its
 * server.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createApp, defaultDeps } from '../../app/api/app.js';
import { OPENAPI_COPY_FILE, OPENAPI_GENERATE_COMMAND, openApiCopyText } from '../../app/api/openapi-copy.js';
import { mockApiDocument } from '../../app/console/mock-api-document.js';

describe("the console's copy of the mock API's OpenAPI document", () => {
  it(`is what \`${OPENAPI_GENERATE_COMMAND}\` writes`, async () => {
    expect(readFileSync(OPENAPI_COPY_FILE, 'utf8')).toBe(await openApiCopyText());
  });

  it("is served by the console as the mock API serves it, at the workflow's address", async () => {
    const served = await createApp(defaultDeps()).request('http://localhost/openapi.json', {
      headers: { host: 'localhost' },
    });
    const { servers: _servers, ...document } = (await served.json()) as Record<string, unknown>;
    const fromConsole = await mockApiDocument('http://mock-api:8081');
    const { servers, ...rest } = fromConsole;
    expect(rest).toEqual(document);
    expect(servers).toEqual([
      {
        url: 'http://mock-api:8081',
        description: 'the mock API as the workflow reaches it (not from the browser)',
      },
    ]);
    expect(Object.keys(fromConsole).slice(0, 2)).toEqual(['openapi', 'servers']);
  });
});
