/**
 * What people type, over HTTP on the shared build of the real npm sources (issue 13,
 * "Lookups people type"): country codes in any ISO form on every country filter, zone
 * names with an unencoded slash, zone abbreviations, language codes and names.
 * (Unit symbols and compounds: server.test.ts "units".)
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
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
});
