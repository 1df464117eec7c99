/**
 * A small program against the clients generated from the served OpenAPI documents
 * (openapi-typescript types + openapi-fetch). test/openapi-client.test.ts generates
 * platform.ts and v1.ts beside a copy of this file, compiles it with `tsc --strict`,
 * then runs it against a real server. The @ts-expect-error lines fail the compile if
 * the documents lose their types (a `meta` or `data` typed as an empty object or any).
 * Not part of the main tsconfig: the generated files exist only during that test.
 */
import createClient from 'openapi-fetch';
import type { paths as Platform } from './platform.ts';
import type { paths as V1 } from './v1.ts';

export async function run(baseUrl: string, key: string) {
  const apis = createClient<Platform>({ baseUrl, headers: { 'X-Service-Key': key } });
  const v1 = createClient<V1>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });

  const fe = await apis.GET('/apis/elements/{id}', { params: { path: { id: 'iron' } } });
  if (!fe.data) throw new Error(`elements: ${fe.error?.error.code}`);
  const name: string = fe.data.data.name;
  const spdx: string = fe.data.meta.sources[0].licence.spdx;
  const contract: string = fe.data.meta.contract_version;

  const page = await apis.GET('/apis/elements', { params: { query: { limit: 2, offset: 0 } } });
  if (!page.data) throw new Error('elements list');
  const total: number = page.data.meta.total;
  const next: string | null = page.data.meta.next;

  const catalogue = await apis.GET('/apis');
  const first = catalogue.data?.data[0];
  const status: 'available' | 'absent' | undefined = first?.status;

  const verse = await v1.GET('/api/v1/text/{translation}/{book}/{chapter}/{verse}', {
    params: { path: { translation: 'kjv', book: 'john', chapter: '3', verse: '16' } },
  });
  if (!verse.data) throw new Error(`verse: ${verse.error?.error.code}`);
  const text: string = verse.data.data.text;
  const nextVerse: string | null = verse.data.data.links.next;
  const abbreviation: string = verse.data.translation.abbreviation;

  const hits = await v1.GET('/api/v1/search', { params: { query: { translation: 'kjv', q: 'begotten', limit: 3 } } });
  const references: string[] = hits.data?.data.map((v) => v.reference) ?? [];

  const missing = await apis.GET('/apis/elements/{id}', { params: { path: { id: 'unobtainium' } } });
  const code: string | undefined = missing.error?.error.code;

  // Word study (issue 38, item 11): panels, tokens, their morphology, and the layers, all typed.
  const study = await v1.GET('/api/v1/study/{translation}/{book}/{chapter}/{verse}', {
    params: { path: { translation: 'kjv', book: 'gen', chapter: '1', verse: '1' } },
  });
  if (!study.data) throw new Error(`study: ${study.error?.error.code}`);
  const panel = study.data.source_panels[0];
  const layer: string = panel.layer;
  const token = panel.tokens[0];
  const position: number = token.position;
  const lemma: string | null = token.lemma;
  const studyStatus: 'imported' | 'dataset-backed' | 'lexicon-aligned' | 'rule-aligned' | 'pending' | 'review-needed' = token.study_status;
  const morphCode: string | undefined = token.morphology?.code;
  const readableText: string | undefined = study.data.readable_text?.[0].text;
  const layers = await v1.GET('/api/v1/source-texts');
  const available: boolean[] = layers.data?.data.map((l) => l.available) ?? [];
  const coverage = await v1.GET('/api/v1/source-coverage');
  const wordTokens: number | undefined = coverage.data?.data.total.word_tokens;

  return {
    name, spdx, contract, total, next, status, text, nextVerse, abbreviation, references, code, missingStatus: missing.response.status,
    layer, position, lemma, studyStatus, morphCode, readableText, available, wordTokens,
  };
}

/** Never called: each line must fail to compile. */
export async function typeErrors(baseUrl: string) {
  const apis = createClient<Platform>({ baseUrl });
  const v1 = createClient<V1>({ baseUrl });
  const fe = await apis.GET('/apis/elements/{id}', { params: { path: { id: 'Fe' } } });
  // @ts-expect-error an element has no colour
  fe.data?.data.colour;
  // @ts-expect-error meta.total is a number, not a string
  const t: string | undefined = (await apis.GET('/apis/elements')).data?.meta.total;
  // @ts-expect-error the verse route needs its path parameters
  await v1.GET('/api/v1/text/{translation}/{book}/{chapter}/{verse}', {});
  // @ts-expect-error a verse's text is a string
  const n: number | undefined = (await v1.GET('/api/v1/text/{translation}/{book}/{chapter}/{verse}', { params: { path: { translation: 'kjv', book: 'gen', chapter: '1', verse: '1' } } })).data?.data.text;
  const tok = (await v1.GET('/api/v1/morphology/{translation}/{book}/{chapter}/{verse}', { params: { path: { translation: 'kjv', book: 'gen', chapter: '1', verse: '1' } } })).data?.source_panels[0].tokens[0];
  // @ts-expect-error a token's position is a number
  const p: string | undefined = tok?.position;
  // @ts-expect-error a token has no colour either
  tok?.colour;
  // @ts-expect-error a layer's verse_count is a number
  const vc: string | undefined = (await v1.GET('/api/v1/source-texts')).data?.data[0].verse_count;
  return [t, n, p, vc];
}
