/**
 * Issue 26, "Search" items 1 and 3 (server/search/match-tiers.ts): a query some of whose
 * words match nothing answers the records matching the most words, flagged
 * `meta.match: "partial"` with the unmatched words named; English stems
 * (pipeline/stemming.ts, fields per pipeline/stem-fields.ts) find other forms of a word,
 * after every whole-word match. On real fixture records, through the server.
 */
import fs from 'node:fs';
import path from 'node:path';
import MiniSearch from 'minisearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import econ from '../sources/economic-indicators.ts';
import events, { readEvents } from '../sources/historical-events/index.ts';
import { countriesSource } from '../sources/geography/index.ts';
import people from '../sources/historical-people/index.ts';
import nonprofits from '../sources/nonprofits.ts';
import { ALL_SOURCES } from '../sources/index.ts';
import { STEMMED_FIELDS } from '../pipeline/stem-fields.ts';
import { STEM_FIELD, stemWord, stemsOf } from '../pipeline/stemming.ts';
import { searchOptions, searchText } from '../pipeline/shards.ts';
import { indexEntries } from '../server/search/search-index.ts';
import { termSearchAny, termSearchBounded, type TermShard } from '../pipeline/term-index.ts';
import { FIXTURES, fixtureSource, serveFixtures, serveSources, type FixtureServer } from './fixture-release.ts';

const ids = (body: { data: { id: string }[] }) => body.data.map((r) => r.id);

describe('partial matches and stems (economic-indicators fixture: 5 real WDI series)', () => {
  let srv: FixtureServer;
  const search = (q: string) => srv.get(`/apis/economic-indicators/search?q=${encodeURIComponent(q)}`);
  beforeAll(async () => {
    srv = await serveFixtures([{ source: econ, files: { series: path.join(FIXTURES, 'economic-indicators/WDISeries.csv') } }]);
  }, 300_000);
  afterAll(() => srv?.stop());

  it('answers `GDP current US` with the best partial matches, naming `us` (the data says "US$")', async () => {
    const { status, body } = await search('GDP current US');
    expect(status).toBe(200);
    expect(body.data[0].id).toBe('NY.GDP.MKTP.CD');
    expect(body.meta).toMatchObject({ match: 'partial', unmatched_words: ['us'] });
    expect(body.meta.total).toBe(body.data.length);
  });

  it('keeps full matches as they were: `GDP current US$` finds the series with no partial flag', async () => {
    const { body } = await search('GDP current US$');
    expect(body.data[0].id).toBe('NY.GDP.MKTP.CD');
    expect(body.meta.match).toBeUndefined();
    expect(body.meta.unmatched_words).toBeUndefined();
  });

  it('still answers nothing when no word matches', async () => {
    const { status, body } = await search('zqxv wvyq');
    expect(status).toBe(200);
    expect(body.data).toEqual([]);
    expect(body.meta.total).toBe(0);
    expect(body.meta.match).toBeUndefined();
  });

  it('finds other forms of a word through its stem, after the records that have the word itself', async () => {
    // "country" is in MS.MIL.XPND.CD's definition; NY.GDP.MKTP.CD says only "countries".
    const country = ids((await search('country')).body);
    expect(country).toContain('NY.GDP.MKTP.CD');
    expect(country.indexOf('MS.MIL.XPND.CD')).toBeLessThan(country.indexOf('NY.GDP.MKTP.CD'));
    // And the other way round: "products" is NY.GDP.MKTP.CD's; EG.ELC.COAL.ZS says "production".
    const products = ids((await search('products')).body);
    expect(products.indexOf('NY.GDP.MKTP.CD')).toBeGreaterThanOrEqual(0);
    expect(products.indexOf('NY.GDP.MKTP.CD')).toBeLessThan(products.indexOf('EG.ELC.COAL.ZS'));
  });
});

describe('stems in descriptions (historical-people fixture)', () => {
  let srv: FixtureServer;
  beforeAll(async () => {
    // As test/historical-people.test.ts serves it: the fixture WordNet file stands in for the npm one.
    const wordnet = { kind: 'url' as const, url: 'https://fixture.example/wordnet/data.noun', sha256: '', format: 'text' as const };
    srv = await serveSources((cache) => [countriesSource, fixtureSource({ ...people, inputs: { ...people.inputs, wordnet } }, cache, { pantheon: 'historical-people/pantheon.tsv', wordnet: 'historical-people/data.noun' })]);
  }, 300_000);
  afterAll(() => srv?.stop());

  it('`Lincoln assassination` finds Lincoln, whose description says "was assassinated"', async () => {
    const { body } = await srv.get('/apis/historical-people/search?q=Lincoln%20assassination');
    expect(body.data[0].id).toBe('pantheon-307');
    expect(body.meta.match).toBeUndefined();
  });

  it('does not stem names: the name field is searched as written', async () => {
    expect(STEMMED_FIELDS['historical-people']).not.toContain('name');
    expect((await srv.get('/apis/historical-people/search?q=lincoln')).body.data[0].id).toBe('pantheon-307');
  });
});

describe('partial matches on the word index (nonprofit-organizations fixture)', () => {
  let srv: FixtureServer;
  beforeAll(async () => {
    // The fixture files stand in for two of the live IRS files, pinned like mirrored ones.
    const input = (a: string) => ({ kind: 'url' as const, url: `https://fixture.example/irs/eo_${a}.csv`, sha256: '', format: 'path' as const });
    const source = { ...nonprofits, inputs: { eo_de: input('de'), eo_vt: input('vt') } };
    srv = await serveSources((cache) => [fixtureSource(source, cache, { eo_de: 'nonprofits/eo_de.csv', eo_vt: 'nonprofits/eo_vt.csv' })]);
  }, 300_000);
  afterAll(() => srv?.stop());

  it('answers the records with the most words, naming the word no record has', async () => {
    const { body } = await srv.get('/apis/nonprofit-organizations/search?q=vermont%20club%20zqxv');
    expect(body.data[0].id).toBe('030135419'); // VERMONT CLUB HOME ASSOCIATION INC
    expect(body.meta).toMatchObject({ match: 'partial', unmatched_words: ['zqxv'] });
    expect((await srv.get('/apis/nonprofit-organizations/search?q=zqxv%20wvyq')).body.data).toEqual([]);
  });
});

describe('stems leave whole-word search as it was (historical-events fixture records)', () => {
  it('gives the same records, scores and entry counts with and without the stem field', () => {
    const DAYS = ['1/1', '1/4', '1/30', '7/21', '8/17', '10/25'];
    const raw = Object.fromEntries(DAYS.map((md) => [`day_${md.replace('/', '_')}`, JSON.parse(fs.readFileSync(path.join(FIXTURES, 'historical-events', `${md}.json`), 'utf8'))]));
    const fields = events.search.fields;
    const docs = readEvents(raw).map((r, o) => ({ __o: o, ...Object.fromEntries(fields.map((f) => [f, searchText(r as never, f)])) }));
    const plain = new MiniSearch(searchOptions(fields));
    plain.addAll(docs);
    const stemmed = new MiniSearch(searchOptions([...fields, STEM_FIELD]));
    stemmed.addAll(docs.map((d) => ({ ...d, [STEM_FIELD]: stemsOf(fields.map((f) => String(d[f as keyof typeof d]))) })));
    // As the server loads them: with the dataset's own search fields.
    const load = (ms: MiniSearch) => MiniSearch.loadJSON(JSON.stringify(ms), searchOptions(fields));
    const [a, b] = [load(plain), load(stemmed)];
    const options = { prefix: (t: string) => t.length >= 3, fuzzy: (t: string) => (t.length >= 5 ? 1 : false), maxFuzzy: 1, combineWith: 'AND' } as const;
    for (const q of ['roman', 'roman empire', 'teaching evolution', 'crashes', 'saints', 'execution', 'build', 'the']) {
      const strip = (r: { id: number; score: number }[]) => r.map(({ id, score }) => [id, score]);
      expect(strip(b.search(q, options)), q).toEqual(strip(a.search(q, options)));
      for (const w of q.split(' ')) expect(indexEntries(b, w, true), w).toBe(indexEntries(a, w, true));
    }
    expect(b.search('executed', options)).toEqual([]); // the stem is searched only where asked for (match-tiers.ts)
  });
});

describe('word index partial matching (unit)', () => {
  const shard: TermShard = [['acme', [0, 2, 5]], ['acmes', [7]], ['aid', [1, 2]], ['aide', [5]]];
  const at = () => shard;
  it('ranks by words matched, then exact words, then list order; caps the candidates', () => {
    expect(termSearchBounded(['acme', 'aid', 'zzz'], at).ordinals).toEqual([]);
    const r = termSearchAny(['acme', 'aid', 'zzz'], at);
    // 2: both words exactly; 5: acme exact + aide by prefix; then one word: 0 (exact), 1 (exact), 7 (prefix).
    expect(r).toEqual({ ordinals: [2, 5, 0, 1, 7], truncated: false, unmatched: ['zzz'] });
    expect(termSearchAny(['acme', 'aid'], at, { maxCandidates: 2 })).toMatchObject({ ordinals: [2, 5], truncated: true });
  });
});

describe('stemming rules', () => {
  it('stems English words alike at both ends, never to fewer than three letters', () => {
    expect(stemWord('assassinated')).toBe(stemWord('assassination'));
    expect(stemWord('kilometres')).toBe(stemWord('kilometre'));
    expect(stemWord('using')).toBe('using'); // Porter's `us` would meet the word "US"
    expect(stemWord('café')).toBe('café');
    expect(stemsOf(['The assassination of the Presidents'])).toBe('assassin presid');
  });

  it('names only datasets and search fields that exist, and no streamed dataset', () => {
    const byId = new Map(ALL_SOURCES.map((s) => [s.id, s]));
    for (const [id, fields] of Object.entries(STEMMED_FIELDS)) {
      const s = byId.get(id);
      expect(s, id).toBeDefined();
      expect(s!.normaliseStream, id).toBeUndefined();
      for (const f of fields) expect(s!.search.fields, `${id}.${f}`).toContain(f);
    }
  });
});

describe('search-quality fixture (bench/search-quality.ts)', () => {
  it('has at least 200 queries over datasets that exist, each with expected ids', () => {
    const fixture = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'search-quality.json'), 'utf8')) as { queries: { dataset: string; q: string; expect: string[] }[] };
    const known = new Set(ALL_SOURCES.map((s) => s.id));
    expect(fixture.queries.length).toBeGreaterThanOrEqual(200);
    for (const x of fixture.queries) {
      expect(known.has(x.dataset), x.dataset).toBe(true);
      expect(x.q.trim().length, JSON.stringify(x)).toBeGreaterThan(0);
      expect(x.expect.length, JSON.stringify(x)).toBeGreaterThan(0);
    }
    expect(new Set(fixture.queries.map((x) => `${x.dataset}\u0000${x.q}`)).size).toBe(fixture.queries.length);
  });
});
