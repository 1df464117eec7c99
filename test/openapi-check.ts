/**
 * Validates a response against the served OpenAPI document: finds the operation for
 * the request path (literal segments before parameters, as the router does) and checks
 * the body against the schema declared for that status.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import { expect } from 'vitest';

const Ajv2020 = ((Ajv2020Module as any).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;

export class OpenApiChecker {
  private ajv = new Ajv2020({ strict: false, allErrors: true });
  private templates: { path: string; parts: string[] }[];
  checked = 0;

  constructor(private doc: any) {
    this.ajv.addSchema(doc, 'openapi');
    this.templates = Object.keys(doc.paths)
      .map((p) => ({ path: p, parts: p.split('/') }))
      .sort((a, b) => b.parts.filter((s) => !s.startsWith('{')).length - a.parts.filter((s) => !s.startsWith('{')).length);
  }

  operationPath(urlPath: string): string | undefined {
    const parts = urlPath.split('?')[0].split('/');
    return this.templates.find((t) => t.parts.length === parts.length && t.parts.every((s, i) => s.startsWith('{') || s === parts[i]))?.path;
  }

  /** Asserts that (status, body) is declared for this path and that the body matches its schema. */
  check(urlPath: string, status: number, body: unknown) {
    const p = this.operationPath(urlPath);
    if (!p) {
      // Paths outside the document may only answer with the error envelope.
      expect(status).toBeGreaterThanOrEqual(400);
      this.validate('#/components/schemas/Error', body, urlPath);
      return;
    }
    const responses = this.doc.paths[p].get.responses;
    expect(Object.keys(responses), `${urlPath}: status ${status} not declared`).toContain(String(status));
    if (status === 304) return;
    const ptr = `#/paths/${p.replace(/~/g, '~0').replace(/\//g, '~1')}/get/responses/${status}/content/application~1json/schema`;
    this.validate(ptr, body, urlPath);
  }

  private validate(ptr: string, body: unknown, label: string) {
    const validate = this.ajv.getSchema(`openapi${ptr}`);
    expect(validate, `no schema at ${ptr}`).toBeTruthy();
    const ok = validate!(body);
    expect(ok, `${label}: ${JSON.stringify(validate!.errors?.slice(0, 3))}`).toBe(true);
    this.checked++;
  }
}
