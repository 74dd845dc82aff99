/** GET /openapi.json and /fields: the mock API's contract and its fields as a page. */
import { Hono } from 'hono';
import { renderFields } from '../fields-page.js';
import { type MockApiDocument, mockApiDocument } from '../mock-api-document.js';
import type { ConsoleDeps } from './deps.js';

/** GET /openapi.json, /fields: the mock API's contract (made once, on first ask) and its fields as a page. */
export function fieldRoutes({ workflowApiUrl }: Pick<ConsoleDeps, 'workflowApiUrl'>): Hono {
  let document: Promise<MockApiDocument> | undefined;
  const openApi = () => {
    document ??= mockApiDocument(workflowApiUrl);
    return document;
  };
  return new Hono()
    .get('/openapi.json', async (c) => c.json(await openApi()))
    .get('/fields', async (c) => c.html(renderFields(await openApi())));
}
