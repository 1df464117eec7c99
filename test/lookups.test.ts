/**
 * What people type, over HTTP on the shared build of the real npm sources (issue 13,
 * "Lookups people type"): country codes in any ISO form on every country filter, zone
 * names with an unencoded slash, zone abbreviations, language codes and names.
 * (Unit symbols and compounds: server.test.ts "units".)
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import MiniSearch from 'minisearch';
import { searchOptions, searchTokenize } from '../pipeline/shards.ts';
import { searchWords } from '../pipeline/term-index.ts';
import { parseQuery } from '../server/http/query.ts';
import { ROUTES } from '../server/api/routes.ts';
import fc from 'fast-check';
import { phraseFirst } from '../server/search/search-bounds.ts';
import { SOURCES } from '../sources/index.ts';
import { OpenApiChecker } from './openapi-check.ts';
import { cleanup, startServer, type Running } from './helpers.ts';

let srv: Running;
let key: string;
let oa: OpenApiChecker;

async function call(path: string) {
  const res = await fetch(srv.base + path, { headers: { 'x-service-key': key } });
  const body = await res.json();
  if (oa) oa.check(path, res.status, body);
  return { status: res.status, body };
}
const ok = async (path: string) => {
  const r = await call(path);
  expect(r.status, `${path}: ${JSON.stringify(r.body).slice(0, 200)}`).toBe(200);
  return r.body;
};
const ids = (body: { data: { id: string }[] }) => body.data.map((r) => r.id);

beforeAll(async () => {
  srv = await startServer(inject('sharedDist'));
  key = srv.key('development');
  oa = new OpenApiChecker((await call('/apis/openapi.json')).body);
});
afterAll(async () => {
  await srv?.close();
  cleanup(srv.stateDir);
});

describe('one country vocabulary', () => {
  it('takes alpha-2, alpha-3 and numeric codes on every country filter, in any case', async () => {
    const de = await ok('/apis/currencies?country=DE&limit=100');
    for (const v of ['DEU', 'deu', '276']) expect(ids(await ok(`/apis/currencies?country=${v}&limit=100`))).toEqual(ids(de));
    const us = await ok('/apis/holidays?country=US&year=2026&scope=national&limit=100');
    expect(ids(await ok('/apis/holidays?country=USA&year=2026&scope=national&limit=100'))).toEqual(ids(us));
    expect(ids(await ok('/apis/holidays?country=840&year=2026&scope=national&limit=100'))).toEqual(ids(us));
    expect((await ok('/apis/geography/timezones?country=DEU')).data.map((z: { id: string }) => z.id)).toContain('Europe/Berlin');
    expect((await ok('/apis/geography/places?country=CHE&limit=1')).data[0].country).toBe('CH');
    expect((await ok('/apis/languages?official_in=AUT&limit=100')).data.map((l: { id: string }) => l.id)).toContain('de');
    expect((await call('/apis/holidays?country=XYZ')).body.error).toMatchObject({ code: 'invalid_parameter', details: { parameter: 'country' } });
  });
});

describe('time zones', () => {
  it('answers a zone name with an unencoded slash, of two or three parts', async () => {
    expect((await ok('/apis/geography/timezones/Europe/Berlin')).data.id).toBe('Europe/Berlin');
    expect((await ok('/apis/geography/timezones/europe/berlin')).data.id).toBe('Europe/Berlin');
    expect((await ok('/apis/geography/timezones/America/Argentina/Buenos_Aires')).data.id).toBe('America/Argentina/Buenos_Aires');
    expect((await ok('/apis/geography/timezones/US/Pacific')).data.id).toBe('America/Los_Angeles');
    expect((await call('/apis/geography/timezones/Europe/Atlantis')).body.error.code).toBe('record_not_found');
  });
  it('resolves an abbreviation tzdb links to a zone, and lists the candidates of any other', async () => {
    expect((await ok('/apis/geography/timezones/CET')).data.id).toBe('Europe/Brussels'); // tzdb 'backward': CET → Europe/Brussels
    expect((await ok('/apis/geography/timezones/EST')).data.id).toBe('America/Panama');
    const pst = await call('/apis/geography/timezones/PST');
    expect(pst.status).toBe(400);
    expect(pst.body.error).toMatchObject({ code: 'ambiguous_id', details: { id: 'PST' } });
    expect(pst.body.error.details.candidates).toContain('America/Los_Angeles');
    expect((await call('/apis/geography/timezones/cest')).body.error.details.candidates).toContain('Europe/Berlin');
    expect(ids(await ok('/apis/geography/timezones?abbreviation=PST'))).toContain('America/Los_Angeles');
  });
});

describe('languages', () => {
  it('answers to ISO 639-2/3 codes, English and native names', async () => {
    for (const k of ['eng', 'ENG']) expect((await ok(`/apis/languages/${k}`)).data.id).toBe('en');
    for (const k of ['deu', 'ger', 'german', 'Deutsch']) expect((await ok(`/apis/languages/${k}`)).data).toMatchObject({ id: 'de', native_name: 'Deutsch', iso639_codes: ['deu', 'ger'] });
    expect((await ok('/apis/languages/search?q=deutsch')).data[0].id).toBe('de');
  });
  it('parses a tag the registry does not list whole into its subtags, each with its record', async () => {
    const en = (await ok('/apis/languages/en-US')).data;
    expect(en).toMatchObject({ tag: 'en-US', extensions: [], private_use: [] });
    expect(en.subtags.map((s: { type: string; record: { id: string } }) => [s.type, s.record.id])).toEqual([['language', 'en'], ['region', 'region:US']]);
    const sr = (await ok('/apis/languages/sr-Latn-RS')).data.subtags.map((s: { record: { id: string } }) => s.record.id);
    expect(sr).toEqual(['sr', 'script:Latn', 'region:RS']);
    expect((await ok('/apis/languages/de-CH-1901-u-co-phonebk')).data).toMatchObject({ extensions: ['u-co-phonebk'] });
    expect((await ok('/apis/languages/zh-Hant')).data).toMatchObject({ id: 'zh-Hant', type: 'redundant' }); // a registered tag is its own record
    const bad = await call('/apis/languages/en-ZQ');
    expect(bad.status).toBe(404);
    expect(bad.body.error).toMatchObject({ code: 'record_not_found', details: { subtag: 'ZQ' } });
    expect((await call('/apis/languages/en-US-abcdefghijk')).body.error.code).toBe('record_not_found'); // not well-formed: a 404 as before
    expect((await ok('/apis/languages/search?q=german')).data.map((l: { id: string }) => l.id)).toContain('de');
  });
});

describe('holidays', () => {
  it('takes from/to like every dated dataset, finding a holiday of several days by any of its days', async () => {
    const kr = await ok('/apis/holidays?country=KOR&scope=national&from=2026-02-18&to=2026-02-18');
    expect(kr.data).toEqual([expect.objectContaining({ local_name: '설날', date: '2026-02-17', end_date: '2026-02-19', days: 3 })]);
    const sept = await ok('/apis/holidays?country=US&scope=national&from=2026-09-01&to=2026-09-30&type=public');
    expect(sept.data.map((h: { name: string }) => h.name)).toEqual(['Labor Day']);
    expect((await call('/apis/holidays?country=US&from=2026-02-30')).body.error).toMatchObject({ code: 'invalid_parameter', details: { parameter: 'from' } });
  });
  it('keeps both scopes by default (README: reconsidered and kept); scope=national is the country-wide calendar', async () => {
    const all = await ok('/apis/holidays?country=US&year=2026&from=2026-09-07&to=2026-09-07&limit=100');
    const national = await ok('/apis/holidays?country=US&year=2026&from=2026-09-07&to=2026-09-07&scope=national&limit=100');
    expect(national.data.map((h: { name: string; scope: string }) => [h.name, h.scope])).toEqual([['Labor Day', 'national']]);
    expect(new Set(all.data.map((h: { scope: string }) => h.scope))).toEqual(new Set(['national', 'subdivision']));
    expect(all.meta.total).toBeGreaterThan(national.meta.total);
  });
});

describe('limit maxima per dataset', () => {
  it('gives the 118 elements, 250 countries and 345 time zones in one call, and says the maximum per operation', async () => {
    expect((await ok('/apis/elements?limit=1000')).data).toHaveLength(118);
    const countries = await ok('/apis/geography/countries?limit=250');
    expect([countries.data.length, countries.meta.total, countries.meta.next]).toEqual([250, 250, null]);
    const zones = await ok('/apis/geography/timezones?limit=1000');
    expect(zones.data.length).toBe(zones.meta.total);
    expect(zones.meta.total).toBeGreaterThan(300);
    // Large datasets keep 100.
    expect((await call('/apis/holidays?limit=101')).body.error).toMatchObject({ code: 'invalid_parameter', details: { parameter: 'limit' } });
    expect((await call('/apis/elements?limit=1001')).body.error).toMatchObject({ code: 'invalid_parameter', details: { parameter: 'limit' } });
    const doc = (await call('/apis/openapi.json')).body;
    const max = (path: string) => doc.paths[path].get.parameters.find((p: { name: string }) => p.name === 'limit').schema.maximum;
    expect([max('/apis/elements'), max('/apis/elements/search'), max('/apis/geography/countries'), max('/apis/holidays'), max('/apis/geography/places')]).toEqual([1000, 1000, 1000, 100, 100]);
  });
  it('declares the larger maximum only where a page of it is under 1 MiB of JSON (the rule)', async () => {
    const small = SOURCES.filter((s) => s.maxLimit !== undefined);
    expect(small.map((s) => s.id).sort()).toEqual(['currencies', 'elements', 'geography/countries', 'geography/timezones', 'languages/families', 'languages/scripts', 'units']);
    for (const s of small) {
      const res = await fetch(`${srv.base}/apis/${s.id}?limit=${s.maxLimit}`, { headers: { 'x-service-key': key } });
      const text = await res.text();
      expect(res.status, s.id).toBe(200);
      expect(Buffer.byteLength(JSON.stringify(JSON.parse(text).data)), s.id).toBeLessThan(2 ** 20);
    }
  });
});

describe('search: punctuation and word order', () => {
  it("joins apostrophes on both sides: St. Andrew's finds what St Andrews finds", () => {
    expect(searchTokenize("St. Andrew's")).toEqual(['St', 'Andrews']);
    expect(searchWords("O'Brien children’s")).toEqual(['obrien', 'childrens']);
    const docs = [
      { __o: 0, name: "St. Andrew's Hospital" }, { __o: 1, name: 'St Andrews Links' }, { __o: 2, name: "Children's Hospital of Philadelphia" },
      { __o: 3, name: 'Childrens Hospital Colorado' }, { __o: 4, name: "Conan O'Brien" }, { __o: 5, name: 'Kate OBrien' },
    ];
    const ms = new MiniSearch(searchOptions(['name']));
    ms.addAll(docs);
    const find = (q: string) => ms.search(q, { combineWith: 'AND' }).map((r) => r.id).sort();
    for (const [a, b] of [["St. Andrew's", 'St Andrews'], ["children's hospital", 'childrens hospital'], ["O'Brien", 'OBrien']]) {
      expect(find(a), a).toEqual(find(b));
    }
    expect(find("St. Andrew's")).toEqual([0, 1]);
    expect(find("children's hospital")).toEqual([2, 3]);
    expect(find("O'Brien")).toEqual([4, 5]);
  });
  it('puts KJV Gen 1:1 first for In the beginning (phrase matches first, in a bounded window)', async () => {
    const res = await fetch(`${srv.base}/api/v1/search?translation=kjv&q=In%20the%20beginning&limit=3`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data[0].reference).toBe('gen.1.1');
    expect(body.data.map((v: { text: string }) => v.text.toLowerCase().startsWith('in the beginning'))).toEqual([true, true, true]);
    // The reordering itself: phrase at the start, phrase inside, words only; scored order kept within each.
    const texts = ['the beginning was in it', 'and in the beginning', 'in the beginning God', 'in the end'];
    expect(phraseFirst([0, 1, 2, 3], (o) => texts[o], 'In the beginning')).toEqual([2, 1, 0, 3]);
  });
  it('orders by phrase exactly as the case-insensitive pattern it replaced (random texts and queries)', () => {
    // The earlier rule, kept here as the reference: one pattern per query.
    const reference = (ordinals: number[], text: (o: number) => string, q: string) => {
      const words = searchTokenize(q);
      if (words.length < 2) return ordinals;
      const esc = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const re = new RegExp(`(?<![\\p{L}\\p{N}])${words.map(esc).join('[^\\p{L}\\p{N}]+')}(?![\\p{L}\\p{N}])`, 'iu');
      const group = (o: number) => {
        const t = text(o).replace(/['’ʼ‘`´]/g, '');
        const m = re.exec(t);
        return !m ? 2 : /^[^\p{L}\p{N}]*$/u.test(t.slice(0, m.index)) ? 0 : 1;
      };
      return ordinals.map((o, i) => [o, i, group(o)]).sort((a, b) => a[2] - b[2] || a[1] - b[1]).map(([o]) => o);
    };
    const word = fc.stringMatching(/^[a-zA-Z0-9éÉß]{1,4}$/);
    const sep = fc.constantFrom(' ', ', ', '. ', ' - ', "'", '’', '  ', '$', '(', ')');
    const text = fc.array(fc.tuple(word, sep), { minLength: 1, maxLength: 12 }).map((xs) => xs.map(([w, s]) => w + s).join(''));
    fc.assert(fc.property(fc.array(text, { minLength: 2, maxLength: 8 }), fc.nat(), fc.boolean(), (texts, pick, own) => {
      const source = searchTokenize(texts[pick % texts.length]);
      const q = own && source.length >= 2 ? source.slice(pick % source.length, (pick % source.length) + 3).join(' ').toUpperCase() : searchTokenize(texts.join(' ')).slice(0, 2).join(' ');
      const ordinals = texts.map((_, i) => i);
      expect(phraseFirst(ordinals, (o) => texts[o], q)).toEqual(reference(ordinals, (o) => texts[o], q));
    }), { numRuns: 500, seed: 2711 });
  });
  it("finds St. John's (Newfoundland) as St Johns does", async () => {
    const a = await ok("/apis/geography/places/search?q=St.%20John's&country=CA&limit=5");
    const b = await ok('/apis/geography/places/search?q=St%20Johns&country=CA&limit=5');
    expect(a.data.length).toBeGreaterThan(0);
    expect(a.data.map((p: { id: string }) => p.id)).toEqual(b.data.map((p: { id: string }) => p.id));
    expect(a.data.map((p: { name: string }) => p.name)).toContain("St. John's");
  });
});

describe('live feed filter values', () => {
  const query = (path: string, qs: string) => parseQuery(new URLSearchParams(qs), ROUTES.find((r) => r.path === path)!.query);
  it('rewrites what people type into the upstream spelling', () => {
    expect(query('/apis/clinical-trials', 'status=completed&phase=3&study_type=interventional')).toMatchObject({ status: 'COMPLETED', phase: 'PHASE3', study_type: 'INTERVENTIONAL' });
    for (const [v, want] of [['Phase III', 'PHASE3'], ['early phase 1', 'EARLY_PHASE1'], ['N/A', 'NA'], ['PHASE2', 'PHASE2']]) expect(query('/apis/clinical-trials', `phase=${encodeURIComponent(v)}`).phase).toBe(want);
    expect(query('/apis/clinical-trials', 'status=not%20yet%20recruiting').status).toBe('NOT_YET_RECRUITING');
    expect(query('/apis/public-companies', 'cik=320193').cik).toBe('0000320193');
    expect(query('/apis/public-companies/filings', 'cik=0000320193').cik).toBe('0000320193');
    expect(query('/apis/recalls', 'classification=2&status=ongoing')).toMatchObject({ classification: 'Class II', status: 'Ongoing' });
    expect(query('/apis/nonprofit-organizations', 'subsection=3').subsection).toBe('03');
    expect(query('/apis/weather-alerts', 'severity=severe&message_type=UPDATE')).toMatchObject({ severity: 'Severe', message_type: 'Update' });
    expect(query('/apis/earthquakes', 'status=REVIEWED').status).toBe('reviewed');
  });
  it('answers a value outside a closed set with a 400 naming the allowed values, and lists them in the OpenAPI document', async () => {
    expect(() => query('/apis/weather-alerts', 'severity=catastrophic')).toThrow(expect.objectContaining({ code: 'invalid_parameter', details: expect.objectContaining({ parameter: 'severity', allowed: ['Extreme', 'Severe', 'Moderate', 'Minor', 'Unknown'] }) }));
    expect(() => query('/apis/earthquakes', 'alert=purple')).toThrow(expect.objectContaining({ code: 'invalid_parameter', details: expect.objectContaining({ parameter: 'alert' }) }));
    const doc = (await call('/apis/openapi.json')).body;
    const param = (path: string, name: string) => doc.paths[path].get.parameters.find((p: { name: string }) => p.name === name).schema;
    expect(param('/apis/weather-alerts', 'urgency').enum).toEqual(['Immediate', 'Expected', 'Future', 'Past', 'Unknown']);
    expect(param('/apis/earthquakes', 'alert').enum).toEqual(['green', 'yellow', 'orange', 'red']);
    expect(param('/apis/elements', 'standard_state').enum).toEqual(['solid', 'liquid', 'gas']);
    // End to end on the shared build: any case reaches the records.
    expect((await ok('/apis/elements?standard_state=GAS&limit=100')).data.length).toBe((await ok('/apis/elements?standard_state=gas&limit=100')).data.length);
  });
});
