/**
 * The mock API's OpenAPI document, from its copy generated from the mock API's own routes
 * (app/console/mock-api-openapi.generated.ts, written by app/api/openapi-copy.ts): in the lab the browser
 * cannot reach the mock API, so the console serves its contract.
 */
import { z } from 'zod';
import { MOCK_API_OPENAPI } from './mock-api-openapi.generated.js';

const DocumentSchema = z.looseObject({
  openapi: z.string(),
  paths: z.record(z.string(), z.unknown()),
});
export type MockApiDocument = z.infer<typeof DocumentSchema>;

/** `serverUrl`: the mock API as the workflow reaches it (the lab: http://mock-api:8081). */
export async function mockApiDocument(serverUrl: string | undefined): Promise<MockApiDocument> {
  const { openapi, ...rest } = DocumentSchema.parse(MOCK_API_OPENAPI);
  const servers =
    serverUrl === undefined
      ? []
      : [{ url: serverUrl, description: 'the mock API as the workflow reaches it (not from the browser)' }];
  return { openapi, servers, ...rest };
}
