/**
 * The mock API's OpenAPI document, made in process from the mock API's own routes (app/api/openapi.ts through
 * createApp): in the lab the browser cannot reach the mock API, so the console serves its contract.
 */
import { z } from 'zod';
import { createApp, defaultDeps } from '../api/app.js';

const DocumentSchema = z.looseObject({
  openapi: z.string(),
  paths: z.record(z.string(), z.unknown()),
});
export type MockApiDocument = z.infer<typeof DocumentSchema>;

/** `serverUrl`: the mock API as the workflow reaches it (the lab: http://mock-api:8081). */
export async function mockApiDocument(serverUrl: string | undefined): Promise<MockApiDocument> {
  const answer = await createApp(defaultDeps()).request('http://localhost/openapi.json', {
    headers: { host: 'localhost' },
  });
  const document = DocumentSchema.parse(await answer.json());
  const servers =
    serverUrl === undefined
      ? []
      : [{ url: serverUrl, description: 'the mock API as the workflow reaches it (not from the browser)' }];
  return { ...document, servers };
}
