/**
 * Issue 38 item 11: the word-study schemas define what the answers carry. Every panel of
 * every study record of the test release (as /study and /morphology compose them: kjv and
 * each translation with an alignment layer) validates against PANEL_SCHEMA and carries no
 * key the schema does not define; so do /source-texts, /source-coverage and a study range
 * as served, against the schemas of the served OpenAPI document.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fsRelease } from '../server/release/fs-reader.ts';
import { layerTable, panelsJson } from '../server/api/v1/study-tokens.ts';
import { PANEL_SCHEMA } from '../server/api/v1/study-schemas.ts';
import { STUDY_DATASET, type StudySummary } from '../sources/scripture/study/dataset.ts';
import { ALIGNMENT_OF } from '../sources/scripture/study/english.ts';
import { startServer, type Running } from './helpers.ts';
import { undefinedKeys } from './schema-keys.ts';

const Ajv2020 = ((Ajv2020Module as any).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;

let srv: Running;
let key: string;
beforeAll(async () => {
  srv = await startServer(inject('sharedDist'));
  key = srv.key();
});
afterAll(() => srv?.close());

describe('the word-study schemas define every property', () => {
  it('every panel of every study record of the release (kjv and the translations with an alignment layer): valid, no undefined key', async () => {
    const release = fsRelease(inject('sharedDist'));
    const info = release.datasets.get(STUDY_DATASET)!;
    expect(info.records).toBeGreaterThan(1000);
    const layers = layerTable(info.summary as StudySummary);
    const reviews = { get: () => undefined, version: 0, all: () => [] } as any;
    const validate = new Ajv2020({ strict: false }).compile(PANEL_SCHEMA);
    const translations = ['kjv', ...new Set(Object.values(ALIGNMENT_OF))].filter((t) => release.datasets.has(`bible/${t}`));
    const missing = new Set<string>();
    let panels = 0;
    for (let o = 0; o < info.records; o++) {
      const rec = JSON.parse((await release.record(STUDY_DATASET, o)).toString('utf8'));
      for (const t of translations) {
        const [json] = panelsJson(rec, t, rec.id, layers, { verifiedOnly: false, includeGenerated: true }, reviews);
        if (!json) continue;
        for (const p of JSON.parse(`[${json}]`)) {
          panels++;
          if (!validate(p)) throw new Error(`${rec.id} (${t}): ${JSON.stringify(validate.errors?.slice(0, 3))}`);
          undefinedKeys(p, PANEL_SCHEMA, undefined, '$', missing);
        }
      }
      if (o % 2000 === 1999) await new Promise((r) => setImmediate(r)); // the worker's RPC
    }
    expect(panels).toBeGreaterThan(1000);
    expect([...missing]).toEqual([]);
  });

  it('as served: a study range, a morphology verse, /source-texts and /source-coverage match the OpenAPI document\'s schemas, no undefined key', async () => {
    const doc = await (await fetch(`${srv.base}/api/v1/openapi`)).json();
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema(doc, 'v1');
    for (const [url, path] of [
      ['/api/v1/study/kjv/range?from=gen.1.1&to=gen.2.25', '/api/v1/study/{translation}/range'],
      ['/api/v1/morphology/kjv/ps/23/1', '/api/v1/morphology/{translation}/{book}/{chapter}/{verse}'],
      ['/api/v1/source-texts', '/api/v1/source-texts'],
      ['/api/v1/source-coverage', '/api/v1/source-coverage'],
    ]) {
      const res = await fetch(srv.base + url, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status, url).toBe(200);
      const body = await res.json();
      const schema = doc.paths[path].get.responses[200].content['application/json'].schema;
      const validate = ajv.compile({ $ref: `v1#/paths/${path.replace(/\//g, '~1')}/get/responses/200/content/application~1json/schema` });
      expect(validate(body), `${url}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
      expect([...undefinedKeys(body, schema, doc)], url).toEqual([]);
    }
  });
});
