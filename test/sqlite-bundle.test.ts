/**
 * The offline SQLite databases (issue 24), opened the way an analyst would: Python's
 * standard `sqlite3` in a subprocess, on the gunzipped downloads of the shared test release
 * (npm inputs only), bundled in a copy as `npm run bundle` does. Their records equal the
 * API's (sampled from elements, units, languages, currencies, holidays, geography and the
 * KJV), their search finds the API's first result, and their verses carry the API's text.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ftsQuery, tableOf } from '../pipeline/sqlite.ts';
import { searchText } from '../pipeline/shards.ts';
import { fsRelease } from '../server/release/fs-reader.ts';
import type { Release } from '../server/release/release.ts';
import { random } from './edge-urls.ts';
import { cleanup, runTsx, startServer, tempDir, type Running } from './helpers.ts';
import { schemasOf } from '../pipeline/bundle.ts';
import { checkDatabase } from './sqlite-columns-check.ts';

const IDS = ['elements', 'units', 'languages', 'languages/scripts', 'currencies', 'holidays', 'geography/countries', 'geography/regions', 'geography/places', 'geography/timezones', 'bible/kjv'];
let work: string;
let srv: Running;
let release: Release;
let key: string;
const files = new Map<string, string>();

/** Runs a Python program over the databases (JSON in, JSON out); python3 is the machine's, its sqlite3 the standard library's. */
function python(program: string, input: unknown): any {
  const script = path.join(work, 'q.py');
  writeFileSync(script, program);
  return JSON.parse(execFileSync('python3', [script], { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 64 * 2 ** 20 }));
}

const get = async (p: string) => {
  const r = await fetch(srv.base + p, { headers: { 'x-service-key': key } });
  return { status: r.status, body: await r.json() };
};

beforeAll(async () => {
  work = tempDir('almanac-sqlite-');
  const dist = path.join(work, 'dist');
  // The shared test release, bundled in a copy as `npm run bundle` does (a child process):
  // its own build of these datasets cost ~20 s of the suite (issue 28).
  cpSync(inject('sharedDist'), dist, { recursive: true });
  const bundled = await runTsx(['pipeline/bundle.ts'], { ALMANAC_DIST: dist });
  expect(bundled.code, bundled.err).toBe(0);
  srv = await startServer(dist, path.join(work, 'state'));
  key = srv.key('development');
  release = fsRelease(dist);
  // What a user does: download from /apis/downloads, check the sha256, gunzip.
  const list = (await get('/apis/downloads')).body;
  for (const a of list.data.filter((x: { format: string }) => x.format === 'sqlite')) {
    const r = await fetch(srv.base + a.links.download, { headers: { 'x-service-key': key } });
    const gz = Buffer.from(await r.arrayBuffer());
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(gz).digest('hex')).toBe(a.sha256);
    const file = path.join(work, a.file.replace(/\.gz$/, ''));
    writeFileSync(file, gunzipSync(gz));
    files.set(a.name, file);
  }
}, 600_000);
afterAll(async () => {
  await srv?.close();
  cleanup(work);
});

describe('the SQLite downloads', () => {
  it('are listed for every dataset and translation, with one holding everything, right after the build', async () => {
    const list = (await get('/apis/downloads')).body;
    const sqlite = list.data.filter((x: { format: string }) => x.format === 'sqlite');
    const every = [...release.datasets.keys()].sort();
    expect(every).toEqual(expect.arrayContaining(IDS));
    for (const id of every) expect(sqlite.some((a: { datasets: string[] }) => a.datasets.length === 1 && a.datasets[0] === id), id).toBe(true);
    expect(sqlite.find((a: { name: string }) => a.name === 'all').datasets.sort()).toEqual(every);
    const sums = readFileSync(path.join(work, 'dist', 'bundles', release.id, 'SHA256SUMS'), 'utf8');
    for (const a of sqlite) expect(sums).toContain(`${a.sha256}  ${a.file}`);
  });

  it('hold every record as the API serves it: 200 ids sampled across datasets, in their own file and in the one with everything', async () => {
    const rnd = random(24);
    const sample: { ds: string; id: string; table: string }[] = [];
    const platform = IDS.filter((id) => !id.startsWith('bible/'));
    for (let i = 0; sample.length < 200; i++) {
      const ds = platform[i % platform.length];
      const info = release.datasets.get(ds)!;
      const rec = JSON.parse((await release.record(ds, Math.floor(rnd() * info.records))).toString()) as { id: string };
      sample.push({ ds, id: rec.id, table: tableOf(ds) });
    }
    const name = (ds: string) => ds.replace(/\//g, '-');
    const got = python(`import json, sys, sqlite3
req = json.load(sys.stdin)
out = []
for r in req['sample']:
    for f in (req['files'][r['name']], req['files']['all']):
        db = sqlite3.connect(f)
        row = db.execute('SELECT record FROM "%s" WHERE id = ?' % r['table'], (r['id'],)).fetchone()
        out.append(row[0] if row else None)
        db.close()
print(json.dumps(out))`, { sample: sample.map((s) => ({ ...s, name: name(s.ds) })), files: Object.fromEntries(files) });
    for (const [i, s] of sample.entries()) {
      const api = (await get(`/apis/${s.ds}/${encodeURIComponent(s.id)}`)).body;
      expect(api.data, `${s.ds} ${s.id}`).toBeDefined();
      expect(JSON.parse(got[2 * i]), `${s.ds} ${s.id} (own file)`).toEqual(api.data);
      expect(JSON.parse(got[2 * i + 1]), `${s.ds} ${s.id} (all)`).toEqual(api.data);
    }
  }, 300_000);

  // A query here names one record: the API's first result is the only one of its top 5
  // with that text (a holiday name that 200 countries share has no single right answer, and
  // the two rankings order such equals differently: FTS5's bm25 normalises by the whole
  // row's length, the API's per field).
  it("find the API's first search result in their top 3 for 30 queries naming one record, searched as the almanac_datasets query does", async () => {
    const rnd = random(30);
    const queries: { ds: string; q: string; words: string; prefixes: string; apiFirst: string }[] = [];
    const searchable = IDS.filter((id) => !id.startsWith('bible/') && release.datasets.get(id)!.search_fields.length);
    for (let i = 0; queries.length < 30 && i < 300; i++) {
      const ds = searchable[i % searchable.length];
      const info = release.datasets.get(ds)!;
      const rec = JSON.parse((await release.record(ds, Math.floor(rnd() * info.records))).toString()) as Record<string, unknown>;
      const field = info.search_fields.find((f) => /[A-Za-z]{3}/.test(searchText(rec, f)))!;
      const q = searchText(rec, field).split(/\s+/).slice(0, 4).join(' ');
      const api = (await get(`/apis/${ds}/search?q=${encodeURIComponent(q)}&limit=5`)).body;
      if (!api.data?.length) continue;
      const text = (r: Record<string, unknown>) => searchText(r, field);
      if (api.data.slice(1).some((r: Record<string, unknown>) => text(r) === text(api.data[0]))) continue;
      queries.push({ ds, q, ...ftsQuery(q, info.search_tuning?.stopWords), apiFirst: api.data[0].id });
    }
    expect(queries.length).toBe(30);
    const got = python(`import json, sys, sqlite3
req = json.load(sys.stdin)
db = sqlite3.connect(req['file'])
out = []
for q in req['queries']:
    sql = db.execute('SELECT search_query FROM almanac_datasets WHERE id = ?', (q['ds'],)).fetchone()[0]
    out.append([r[0] for r in db.execute(sql, {'words': q['words'], 'prefixes': q['prefixes']}).fetchall()[:3]])
print(json.dumps(out))`, { queries, file: files.get('all') });
    const missed = queries.filter((q, i) => !got[i].includes(q.apiFirst)).map((q) => `${q.ds} "${q.q}": API ${q.apiFirst}, SQLite ${got[queries.indexOf(q)].join(', ')}`);
    expect(missed).toEqual([]);
  }, 300_000);

  it("give the API's text for 50 sampled verses, by reference and by book, chapter and verse", async () => {
    const rnd = random(50);
    const info = release.datasets.get('bible/kjv')!;
    const refs: string[] = [];
    for (let i = 0; i < 50; i++) refs.push((JSON.parse((await release.record('bible/kjv', Math.floor(rnd() * info.records))).toString()) as { id: string }).id);
    const got = python(`import json, sys, sqlite3
req = json.load(sys.stdin)
db = sqlite3.connect(req['file'])
out = []
for ref in req['refs']:
    book, chapter, verse = ref.split('.')
    a = db.execute("SELECT text FROM verses WHERE translation = 'kjv' AND reference = ?", (ref,)).fetchone()[0]
    b = db.execute("SELECT text FROM verses WHERE translation = 'kjv' AND book = ? AND chapter = ? AND verse = ?", (book, int(chapter), int(verse))).fetchone()[0]
    out.append([a, b])
print(json.dumps(out))`, { refs, file: files.get('bible-kjv') });
    for (const [i, ref] of refs.entries()) {
      const [book, chapter, verse] = ref.split('.');
      const api = (await fetch(`${srv.base}/api/v1/text/kjv/${book}/${chapter}/${verse}`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json())).data.text;
      expect(got[i], ref).toEqual([api, api]);
    }
  }, 300_000);

  it('carry their release, licences, upstream checksums and a readme', () => {
    const got = python(`import json, sys, sqlite3
db = sqlite3.connect(json.load(sys.stdin)['file'])
print(json.dumps({
  'meta': dict(db.execute('SELECT key, value FROM almanac_meta').fetchall()),
  'licences': db.execute('SELECT COUNT(*) FROM almanac_sources WHERE attribution <> ""').fetchone()[0],
  'upstreams': db.execute('SELECT COUNT(*) FROM almanac_upstreams WHERE length(sha256) = 64').fetchone()[0],
  'readme': [r[0] for r in db.execute('SELECT topic FROM readme').fetchall()],
}))`, { file: files.get('all') });
    expect(got.meta).toMatchObject({ release: release.id, file: 'all.sqlite.gz', platform_contract_version: '0.9.0' });
    expect(got.licences).toBeGreaterThanOrEqual(IDS.length);
    expect(got.upstreams).toBeGreaterThanOrEqual(IDS.length);
    expect(got.readme).toEqual(expect.arrayContaining(['this file', 'a dataset', 'search', 'scripture']));
  });

  it('type every column as its field is in the record schema, every row of every file (the one with everything too), dates as ISO text', () => {
    const infos = Object.fromEntries(release.datasets);
    const schemas = schemasOf(Object.keys(infos));
    const problems: string[] = [];
    for (const [name, file] of files) problems.push(...checkDatabase(file, schemas, infos as any).problems.map((p) => `${name}: ${p}`));
    expect(problems).toEqual([]);
  });

  it('explain themselves: the readme names the parameters every search query takes and where the book codes are; statistics are there', () => {
    const got = python(`import json, sys, sqlite3
db = sqlite3.connect(json.load(sys.stdin)['file'])
readme = ' '.join(r[0] for r in db.execute('SELECT text FROM readme'))
kjv = dict(db.execute("SELECT search_query, search_parameters FROM almanac_datasets WHERE id = 'bible/kjv'").fetchall())
(query, params), = kjv.items()
print(json.dumps({
  'readme': readme,
  'queries': db.execute('SELECT id, search_query, search_parameters FROM almanac_datasets WHERE search_query IS NOT NULL').fetchall(),
  'verses': [r[0] for r in db.execute(query, {'query': '"love" "your" "enemies"', 'translation': 'kjv'}).fetchall()],
  'genesis': db.execute("SELECT book, name, chapters, verses FROM books WHERE translation = 'kjv' AND name = 'Genesis'").fetchone(),
  'books': db.execute("SELECT count(*) FROM books WHERE translation = 'kjv'").fetchone()[0],
  'verse_books': db.execute("SELECT count(DISTINCT book) FROM verses WHERE translation = 'kjv'").fetchone()[0],
  'analysed': [r[0] for r in db.execute('SELECT DISTINCT tbl FROM sqlite_stat1')],
}))`, { file: files.get('all') });
    // Every named parameter of every ready query is one the query declares, and the readme says how to fill it.
    for (const [id, sql, params] of got.queries as [string, string, string][]) {
      expect(JSON.parse(params), id).toEqual([...new Set([...sql.matchAll(/:([a-z_]+)/g)].map((m) => m[1]))]);
      for (const p of JSON.parse(params)) expect(got.readme, `${id} :${p}`).toContain(`:${p}`);
    }
    expect(got.verses).toEqual(expect.arrayContaining(['matt.5.44', 'luke.6.27']));
    expect(got.readme).toMatch(/books lists each translation's books/);
    expect(got.genesis).toEqual(['gen', 'Genesis', 50, 1533]);
    expect(got.books).toBe(got.verse_books);
    expect(got.analysed).toEqual(expect.arrayContaining(['elements', 'holidays', 'verses', 'geography_places']));
  });
});
