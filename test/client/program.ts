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

  return { name, spdx, contract, total, next, status, text, nextVerse, abbreviation, references, code, missingStatus: missing.response.status };
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
  return [t, n];
}
