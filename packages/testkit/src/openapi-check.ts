import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

// Checks a response the tests received against docs/openapi.json: the operation its method and
// path name must list its status, its body must match that status's schema, and the headers the
// document promises must be there. ApiClient runs it on every response, so a route or schema
// that drifts from the document fails the suite that saw it.

interface ResponseDoc {
  headers?: Record<string, unknown>;
  content?: { 'application/json': { schema: { $ref: string } } };
}
interface OperationDoc {
  operationId: string;
  responses: Record<string, ResponseDoc>;
}
interface OpenApiDoc {
  paths: Record<string, Record<string, OperationDoc>>;
  components: object;
}

const DOC_ID = 'wirehook-openapi.json';

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  literals: number;
  operation: OperationDoc;
}

class OpenApiCheck {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly routes: Route[];
  private readonly validators = new Map<string, ReturnType<Ajv2020['compile']>>();

  constructor(doc: OpenApiDoc) {
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema({ $id: DOC_ID, components: doc.components });
    this.routes = Object.entries(doc.paths).flatMap(([template, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        literals: template.split('/').filter((s) => s && !s.startsWith('{')).length,
        operation,
      })),
    );
    // The most literal template first: /v1/endpoints/{id}/recover before /v1/endpoints/{id}.
    this.routes.sort((a, b) => b.literals - a.literals);
  }

  /** What is wrong with this response, by the document; empty when nothing is. */
  problems(method: string, url: string, status: number, headers: Headers, body: unknown): string[] {
    const path = new URL(url).pathname.replace(/(.)\/$/, '$1'); // Express routes /x/ as /x
    if (!path.startsWith('/v1/') || path === '/v1/openapi.json') return [];
    const route = this.routes.find((r) => r.method === method && r.pattern.test(path));
    const where = `${method} ${path} → ${status}`;
    if (!route) {
      // No such operation: the API answers with an error body (no key, no route, throttled).
      if (![401, 404, 429].includes(status)) return [`${where}: no operation in docs/openapi.json has this path`];
      return this.bodyProblems(where, '#/components/schemas/Error', body);
    }
    const response = route.operation.responses[String(status)] ?? (status >= 500 ? route.operation.responses['default'] : undefined);
    if (!response) {
      const listed = Object.keys(route.operation.responses).join(', ');
      return [`${where}: ${route.operation.operationId} does not list status ${status} in docs/openapi.json (it lists ${listed})`];
    }
    const missing = Object.keys(response.headers ?? {}).filter((h) => !headers.has(h));
    const problems = missing.map((h) => `${where}: header ${h} is missing (docs/openapi.json promises it)`);
    const schema = response.content?.['application/json'].schema.$ref;
    if (schema) problems.push(...this.bodyProblems(where, schema, body));
    else if (body !== undefined && body !== '') problems.push(`${where}: a body came where docs/openapi.json lists none`);
    return problems;
  }

  private bodyProblems(where: string, ref: string, body: unknown): string[] {
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOC_ID}${ref}` });
      this.validators.set(ref, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${where}: body${e.instancePath || ''} ${e.message ?? 'is invalid'} (${ref.split('/').at(-1)}: ${e.schemaPath})`);
  }
}

let shared: OpenApiCheck | undefined;

/** The check against the repository's docs/openapi.json, read once per test process. */
export function openApiCheck(): OpenApiCheck {
  shared ??= new OpenApiCheck(JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')) as OpenApiDoc);
  return shared;
}
