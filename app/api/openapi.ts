/** The OpenAPI 3.1 document generated from the endpoint declarations and the routes' own zod schemas. */
import { z } from 'zod';
import type { Endpoint } from './http/endpoint.js';

const COMPONENT_URI = (id: string) => `#/components/schemas/${id}`;

/**
 * Generates the OpenAPI 3.1 document from the endpoint declarations and the very zod schemas the routes
 * validate with: there is no hand-kept copy to drift. Schemas carrying a meta `id` become components.
 * `servers` is not part of it: the route adds the address the document was fetched from.
 */
export function buildOpenApi(endpoints: readonly Endpoint[], version: string): Record<string, unknown> {
  const toSchema = (schema: z.ZodType): unknown => {
    const id = z.globalRegistry.get(schema)?.id;
    if (id) return { $ref: COMPONENT_URI(id) };
    const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { unrepresentable: 'any', override });
    return json;
  };
  const jsonContent = (schema: z.ZodType) => ({ 'application/json': { schema: toSchema(schema) } });

  const paths: Record<string, Record<string, unknown>> = {};
  for (const { spec } of endpoints) {
    const path = spec.path.replace(/:([^/]+)/g, '{$1}');
    const params = Object.entries(spec.params ?? {});
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(spec.responses)) {
      responses[status] = {
        description: r.description,
        ...(r.headers && {
          headers: Object.fromEntries(
            Object.entries(r.headers).map(([name, description]) => [
              name,
              { description, required: true, schema: { type: 'string' } },
            ]),
          ),
        }),
        content: jsonContent(r.schema),
      };
    }
    if (params.length > 0) {
      const codes = [...new Set(params.map(([, p]) => p.code))].join(', ');
      responses['400'] ??= {
        description: `${codes}: a path parameter does not match its schema`,
        content: { 'application/json': { schema: { $ref: COMPONENT_URI('Error') } } },
      };
    }
    if (spec.method === 'POST') {
      for (const status of ['400', '411', '413', '415', '422']) {
        responses[status] ??= { $ref: `#/components/responses/Post${status}` };
      }
    }
    responses.default = { $ref: '#/components/responses/Error' };

    paths[path] = {
      ...paths[path],
      [spec.method.toLowerCase()]: {
        operationId: spec.operationId,
        summary: spec.summary,
        tags: [spec.tag],
        ...(params.length > 0 && {
          parameters: params.map(([name, p]) => ({
            name,
            in: 'path',
            required: true,
            description: p.description,
            schema: toSchema(p.schema),
          })),
        }),
        ...(spec.body && { requestBody: { required: true, content: jsonContent(spec.body) } }),
        responses,
      },
    };
  }

  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    uri: COMPONENT_URI,
    unrepresentable: 'any',
    override,
  });
  // zod names each component with `$id: "#/components/schemas/X"`; a fragment is not a valid `$id` in
  // JSON Schema 2020-12, and tools that compile the schemas (Prism) fail on it, so it is left out.
  const components = Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _dialect, $id: _uri, id: _id, ...json }]) => [id, json]),
  );
  const errorResponse = (description: string) => ({
    description,
    content: { 'application/json': { schema: { $ref: COMPONENT_URI('Error') } } },
  });

  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'SOAR lab mock API',
      version,
      description:
        'Lab-only stand-in for the identity, case, notification and blocklist systems a suspicious-login ' +
        'workflow talks to. No authentication and no TLS: it must be reachable from the lab network only.\n\n' +
        'Unknown fields in a request body: a closed body (POST /blocklist, /control/*, /reset) refuses ' +
        'them with 422 validation_failed; an open record (POST /cases, /notify) keeps them as sent, apart ' +
        'from the fields the service owns (id, status, accepted_at, created_at, updated_at, revision), ' +
        'which are ignored. Nothing is dropped silently otherwise.',
    },
    tags: [...new Set(endpoints.map(({ spec }) => spec.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: components,
      responses: {
        Error: errorResponse(
          'An error in the contract shape (404 not_found, 405 method_not_allowed, 403 access, ...)',
        ),
        Post400: errorResponse('invalid_content_length, invalid_json, body_not_object or incomplete_body'),
        Post411: errorResponse('length_required: no Content-Length (a chunked body)'),
        Post413: errorResponse(
          'payload_too_large: Content-Length over 65536, refused before the body is read',
        ),
        Post415: errorResponse('unsupported_media_type: Content-Type is not application/json'),
        Post422: errorResponse('validation_failed, with details [{path, message}]'),
      },
    },
  };
}

/**
 * zod writes its own regular expression beside `format: ipv4 | ipv6`; the expression is narrower than
 * what zod accepts (it misses `::ffff:192.0.2.1`), so the document states the format alone.
 */
function override({ jsonSchema }: { jsonSchema: Record<string, unknown> }): void {
  if (jsonSchema.format === 'ipv4' || jsonSchema.format === 'ipv6') delete jsonSchema.pattern;
}
