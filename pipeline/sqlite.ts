/**
 * The offline databases (issue 24): a release's datasets as SQLite files that any
 * language opens with its own standard library — Python's `sqlite3`, the `sqlite3` CLI,
 * R, Excel through ODBC, Datasette — with full-text search (FTS5, bm25 ranking).
 *
 * Per dataset a table named by its id (`geography/places` → `geography_places`):
 *   ordinal (the API's list order), id, each filterable field as a typed column (indexed),
 *   the search rank's boost where the dataset has one, and `record`: the whole record as
 *   the API serves it (JSON). An array-valued filter field gets a table of its own
 *   (`<table>__<field>`: ordinal, value); aliases are in `<table>__aliases`; the search
 *   index is `<table>__fts` over the fields the API searches (its content is the view
 *   `<table>__search` of those fields of `record`, its rowid the ordinal, so FTS5 can
 *   rebuild it, highlight and snippet by itself). Two underscores: `languages__families` (a list field) is never the table of
 *   the dataset `languages/families` (`languages_families`). Translations are rows of one `verses` table (+ `verses_fts`); the word-study
 *   layers are `study_layers`, `study_tokens` and `study_morphology` (pipeline/sqlite-study.ts).
 * Every file carries `almanac_meta`, `almanac_datasets` (with a ready search query per
 * dataset), `almanac_sources`, `almanac_upstreams` and a `readme` view explaining this.
 *
 * Why better-sqlite3 (12, built from source on install): it has FTS5 and writes hundreds
 * of thousands of rows a second in one transaction; sql.js (SQLite in WASM, no build) has
 * no FTS5 ("no such module: fts5", tried), and node:sqlite needs Node 22.
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { datasetId } from '../sources/scripture/dataset.ts';
import { STUDY_DATASET } from '../sources/scripture/study/dataset.ts';
import { keyBucketPath } from './paths.ts';
import { searchWeight } from './search-weight.ts';
import { records } from './release-records.ts';
import type { DatasetInfo } from './shards.ts';
import { columnsOf, type Column } from './sqlite-columns.ts';
import { studyTables } from './sqlite-study.ts';
import type { SchemaObject } from 'ajv';
import type { TranslationSummary } from '../sources/scripture/dataset.ts';
import type { Manifest } from './writer.ts';

export type Db = Database.Database;
/**
 * Bumped when the schema changes (almanac_meta `format`); a release's downloads of another
 * format are written again. 2: columns typed from the record schemas, `books`,
 * `almanac_datasets.search_parameters`, statistics (ANALYZE).
 */
export const SQLITE_FORMAT = '2';

export const tableOf = (ds: string) => ds.toLowerCase().replace(/[^a-z0-9]+/g, '_');
export const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
const isTranslation = (ds: string) => ds.startsWith(datasetId(''));

export function openDb(file: string): Db {
  const db = new Database(file);
  // Written once into a temporary folder and renamed when complete: no journal needed.
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('page_size = 4096');
  db.exec(`
    CREATE TABLE almanac_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE almanac_datasets (id TEXT PRIMARY KEY, title TEXT, description TEXT, table_name TEXT, contract_version TEXT,
      data_release TEXT, records INTEGER, live INTEGER, upstream_time TEXT, fetched_at TEXT, coverage TEXT, search_fields TEXT, search_query TEXT,
      search_parameters TEXT, summary TEXT);
    CREATE TABLE almanac_sources (dataset TEXT, name TEXT, url TEXT, licence_spdx TEXT, licence_name TEXT, licence_url TEXT, attribution TEXT);
    CREATE TABLE almanac_upstreams (dataset TEXT, name TEXT, ref TEXT, sha256 TEXT, fetched_at TEXT);
    CREATE TABLE almanac_readme (n INTEGER PRIMARY KEY, topic TEXT, text TEXT);
    CREATE VIEW readme AS SELECT topic, text FROM almanac_readme ORDER BY n;`);
  return db;
}

const sqlString = (v: string) => `'${v.replace(/'/g, "''")}'`;
/** A field name as a JSON path member (quoted when it is not a plain name). */
const jsonKey = (f: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(f) ? f : `"${f.replace(/"/g, '\\"')}"`);
const sqlValue = (v: unknown) => (v === null || v === undefined ? null : typeof v === 'boolean' ? (v ? 1 : 0) : typeof v === 'object' ? JSON.stringify(v) : v);

/**
 * The two FTS5 queries of a search, as the API's rules come closest to them: every word
 * must match (the dataset's stop words left out), `prefixes` from 3 letters also as a
 * prefix, `words` as whole words only (the API ranks a whole-word match first).
 */
export function ftsQuery(text: string, stopWords: string[] = []): { prefixes: string; words: string } {
  const stop = new Set(stopWords);
  // Case and accents are folded by the index's tokenizer (unicode61, remove_diacritics 2), not here:
  // JavaScript lower-cases "İ" to "i" plus a combining dot, which the tokenizer would split on.
  const words = (text.normalize('NFC').match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).filter((w) => !stop.has(w.toLowerCase()));
  return { prefixes: words.map((w) => `"${w}"${w.length >= 3 ? '*' : ''}`).join(' '), words: words.map((w) => `"${w}"`).join(' ') };
}

/**
 * One dataset's table, list tables, aliases and search index. Rows are added from JS; the
 * indexes and the FTS index are built after the rows, by SQLite itself (the index from the
 * `__search` view), which is faster than keeping them current row by row.
 */
export class DatasetTables {
  private readonly insert: (ordinal: number, rec: Record<string, unknown>, line: string) => void;
  readonly finish: () => void;

  constructor(db: Db, info: DatasetInfo, cols: Column[]) {
    const t = tableOf(info.id);
    const scalar = cols.filter((c) => !c.array);
    const arrays = cols.filter((c) => c.array);
    const fields = info.search_fields ?? [];
    // The API's document weight (pipeline/search-weight.ts): rank and breakdown alike.
    const rank = info.search_rank || info.search_breakdown;
    db.exec(`CREATE TABLE ${q(t)} (ordinal INTEGER PRIMARY KEY, id TEXT NOT NULL${scalar.map((c) => `, ${q(c.name)}${c.type ? ` ${c.type}` : ''}`).join('')}${rank ? ', search_boost REAL' : ''}, record TEXT NOT NULL);
      CREATE TABLE ${q(`${t}__aliases`)} (alias TEXT NOT NULL, ordinal INTEGER NOT NULL);
      ${arrays.map((c) => `CREATE TABLE ${q(`${t}__${c.name}`)} (ordinal INTEGER NOT NULL, value${c.type ? ` ${c.type}` : ''});`).join('\n')}
      ${fields.length ? `CREATE VIEW ${q(`${t}__search`)} AS SELECT ordinal${fields.map((f) => `, json_extract(record, ${sqlString(`$.${jsonKey(f)}`)}) AS ${q(f)}`).join('')} FROM ${q(t)};
        CREATE VIRTUAL TABLE ${q(`${t}__fts`)} USING fts5(${fields.map((f) => q(f)).join(', ')}, content=${sqlString(`${t}__search`)}, content_rowid='ordinal', tokenize='unicode61 remove_diacritics 2');` : ''}`);
    const row = db.prepare(`INSERT INTO ${q(t)} VALUES (?, ?${scalar.map(() => ', ?').join('')}${rank ? ', ?' : ''}, ?)`);
    const arr = arrays.map((c) => db.prepare(`INSERT INTO ${q(`${t}__${c.name}`)} VALUES (?, ?)`));
    this.insert = (ordinal, rec, line) => {
      const values: unknown[] = [ordinal, rec.id];
      for (const c of scalar) values.push(sqlValue(rec[c.field]));
      if (rank) values.push(searchWeight({ rank: info.search_rank, rankScale: info.search_rank_scale, breakdown: info.search_breakdown }, rec));
      values.push(line);
      row.run(values);
      arrays.forEach((c, i) => {
        const v = rec[c.field];
        for (const x of Array.isArray(v) ? v : v === null || v === undefined ? [] : [v]) arr[i].run(ordinal, sqlValue(x));
      });
    };
    this.finish = () => db.exec(`CREATE UNIQUE INDEX ${q(`${t}__id`)} ON ${q(t)}(id);
      CREATE INDEX ${q(`${t}__aliases_alias`)} ON ${q(`${t}__aliases`)}(alias);
      ${scalar.map((c) => `CREATE INDEX ${q(`${t}__${c.name}_index`)} ON ${q(t)}(${q(c.name)});`).join('\n')}
      ${arrays.map((c) => `CREATE INDEX ${q(`${t}__${c.name}_value`)} ON ${q(`${t}__${c.name}`)}(value);`).join('\n')}
      ${fields.length ? `INSERT INTO ${q(`${t}__fts`)}(${q(`${t}__fts`)}) VALUES ('rebuild');` : ''}`);
  }

  add(ordinal: number, rec: Record<string, unknown>, line: string) {
    this.insert(ordinal, rec, line);
  }

  /** The query a user runs to search this dataset as the API does (bm25 with the API's field boosts, then its rank). */
  static searchQuery(info: DatasetInfo): string | null {
    const fields = info.search_fields ?? [];
    if (!fields.length) return null;
    const t = tableOf(info.id);
    const weights = fields.map((f) => info.search_boost?.[f] ?? 1).join(', ');
    const fts = q(`${t}__fts`);
    return `SELECT t.id, t.record FROM ${fts} JOIN ${q(t)} t ON t.ordinal = ${fts}.rowid WHERE ${fts} MATCH :prefixes `
      + `ORDER BY ${fts}.rowid NOT IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH :words), bm25(${fts}, ${weights})${info.search_rank || info.search_breakdown ? ' * t.search_boost' : ''}, t.ordinal LIMIT 20`;
  }
}

/** Aliases from the release's key buckets (`~alias` keys: one ordinal, or the ids of several records). */
function addAliases(db: Db, dir: string, info: DatasetInfo, idOrdinal: (id: string) => number | undefined) {
  const ins = db.prepare(`INSERT INTO ${q(`${tableOf(info.id)}__aliases`)} VALUES (?, ?)`);
  for (let b = 0; b < info.key_buckets; b++) {
    const bucket = JSON.parse(readFileSync(path.join(dir, keyBucketPath(info.id, b)), 'utf8')) as Record<string, number | string[]>;
    for (const [k, v] of Object.entries(bucket)) {
      if (!k.startsWith('~')) continue;
      for (const o of typeof v === 'number' ? [v] : v.map(idOrdinal).filter((x): x is number => x !== undefined)) ins.run(k.slice(1), o);
    }
  }
}

const VERSES = `CREATE TABLE IF NOT EXISTS verses (rowid INTEGER PRIMARY KEY, translation TEXT NOT NULL, reference TEXT NOT NULL, book TEXT NOT NULL,
    chapter INTEGER NOT NULL, verse INTEGER NOT NULL, ordinal INTEGER NOT NULL, text TEXT NOT NULL, record TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS books (translation TEXT NOT NULL, book TEXT NOT NULL, position INTEGER NOT NULL, osis TEXT NOT NULL, name TEXT NOT NULL,
    canon_group TEXT NOT NULL, chapters INTEGER NOT NULL, verses INTEGER NOT NULL, PRIMARY KEY (translation, book)) WITHOUT ROWID;
  CREATE VIRTUAL TABLE IF NOT EXISTS verses_fts USING fts5(text, content='verses', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2');`;

/** Translations: rows of `verses` (one table for every translation of the file), indexed, with `verses_fts`. */
export function finishVerses(db: Db) {
  db.exec(`INSERT INTO verses_fts(verses_fts) VALUES ('rebuild');
    CREATE UNIQUE INDEX IF NOT EXISTS verses_reference ON verses(translation, reference);
    CREATE INDEX IF NOT EXISTS verses_place ON verses(translation, book, chapter, verse);`);
}

/** One dataset of a release into its own database: rows, aliases, indexes, metadata. */
export function addDataset(db: Db, dir: string, info: DatasetInfo, schema: SchemaObject | null) {
  const translation = isTranslation(info.id);
  const table = translation ? 'verses' : info.id === STUDY_DATASET ? 'study_tokens' : tableOf(info.id);
  const search = translation ? VERSE_SEARCH : DatasetTables.searchQuery(info);
  db.prepare('INSERT INTO almanac_datasets VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(info.id, info.title, info.description, table, info.contract_version,
    info.data_release, info.records, info.live ? 1 : 0, info.upstream_time ?? null, info.fetched_at ?? null, info.coverage ?? null,
    JSON.stringify(info.search_fields ?? []), search, search ? JSON.stringify(parametersOf(search)) : null, info.summary === undefined ? null : JSON.stringify(info.summary));
  const src = db.prepare('INSERT INTO almanac_sources VALUES (?, ?, ?, ?, ?, ?, ?)');
  for (const p of info.provenance) {
    const l = p.licence as { spdx?: string; name?: string; url?: string };
    src.run(info.id, p.name, p.url ?? null, l.spdx ?? null, l.name ?? null, l.url ?? null, p.attribution);
  }
  const up = db.prepare('INSERT INTO almanac_upstreams VALUES (?, ?, ?, ?, ?)');
  for (const u of info.upstream) up.run(info.id, u.name, u.ref, u.sha256, u.fetched_at ?? null);
  if (info.id === STUDY_DATASET) return studyTables(db, records(dir, info), info);
  if (translation) {
    db.exec(VERSES);
    const slug = info.id.slice(datasetId('').length);
    const ins = db.prepare('INSERT INTO verses (translation, reference, book, chapter, verse, ordinal, text, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    for (const { ordinal, rec, line } of records(dir, info)) ins.run(slug, rec.id, rec.book, rec.chapter, rec.verse, ordinal, rec.text, line);
    // The book codes of `verses.book` with their names, from the translation's summary.
    const book = db.prepare('INSERT INTO books VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    (info.summary as TranslationSummary).books.forEach((b, i) =>
      book.run(slug, b.slug, i + 1, b.osis, b.name, b.group, b.chapters.length, b.chapters.reduce((n, c) => n + c[2], 0)));
    return finishVerses(db);
  }
  const cols = columnsOf(info, schema, () => [...records(dir, info)].map((r) => r.rec));
  const tables = new DatasetTables(db, info, cols);
  const ids = new Map<string, number>();
  for (const { ordinal, rec, line } of records(dir, info)) {
    tables.add(ordinal, rec, line);
    ids.set(String(rec.id), ordinal);
  }
  addAliases(db, dir, info, (id) => ids.get(id));
  tables.finish();
}

const VERSE_SEARCH = 'SELECT v.reference, v.text FROM verses_fts JOIN verses v ON v.rowid = verses_fts.rowid WHERE verses_fts MATCH :query AND v.translation = :translation ORDER BY bm25(verses_fts) LIMIT 20';

/** The named parameters a query takes, in order of first use (`:words`, `:prefixes`…). */
export const parametersOf = (sql: string) => [...new Set([...sql.matchAll(/:([a-z_]+)/g)].map((m) => m[1]))];

/**
 * A dataset's database copied into the one with everything, by SQLite itself: its schema
 * replayed (minus FTS5's own tables, which the virtual table makes), its rows copied, its
 * indexes created and its search index rebuilt from the copied rows.
 */
export function mergeInto(all: Db, file: string) {
  all.prepare('ATTACH DATABASE ? AS src').run(file);
  // One transaction for the copy; ATTACH and DETACH stand outside it (SQLite refuses them inside).
  try {
    all.transaction(() => copy(all))();
  } finally {
    all.exec('DETACH DATABASE src');
  }
}

function copy(all: Db) {
  {
    const objects = all.prepare("SELECT type, name, sql FROM src.sqlite_master WHERE sql IS NOT NULL ORDER BY rowid").all() as { type: string; name: string; sql: string }[];
    const virtual = new Set(objects.filter((o) => /^CREATE VIRTUAL TABLE/i.test(o.sql)).map((o) => o.name));
    const shadow = (name: string) => [...virtual].some((v) => name.startsWith(`${v}_`));
    const exists = (name: string) => !!all.prepare('SELECT 1 FROM main.sqlite_master WHERE name = ?').get(name);
    // The file's own facts are the merged file's to write (describe).
    const own = new Set(['almanac_meta', 'almanac_readme']);
    // SQLite's own tables (sqlite_stat1) are made by ANALYZE of the merged file.
    const internal = (name: string) => name.startsWith('sqlite_');
    for (const o of objects) {
      if (o.type === 'index' || shadow(o.name) || exists(o.name) || internal(o.name)) continue;
      all.exec(o.sql);
    }
    for (const o of objects) {
      if (o.type !== 'table' || virtual.has(o.name) || shadow(o.name) || own.has(o.name) || internal(o.name)) continue;
      // verses: every translation in one table, numbered anew.
      if (o.name === 'verses') all.exec('INSERT INTO main.verses (translation, reference, book, chapter, verse, ordinal, text, record) SELECT translation, reference, book, chapter, verse, ordinal, text, record FROM src.verses');
      else all.exec(`INSERT INTO main.${q(o.name)} SELECT * FROM src.${q(o.name)}`);
    }
    for (const o of objects) if (o.type === 'index' && !exists(o.name)) all.exec(o.sql);
    for (const v of virtual) if (v !== 'verses_fts') all.exec(`INSERT INTO main.${q(v)}(${q(v)}) VALUES ('rebuild')`);
  }
}

/** The file's own facts and the schema's explanation. */
export function describe(db: Db, m: Manifest, file: string, builtAt: string) {
  const meta = db.prepare('INSERT INTO almanac_meta VALUES (?, ?)');
  for (const [k, v] of Object.entries({ format: SQLITE_FORMAT, file, release: m.release, pipeline_version: m.pipeline_version, built_at: builtAt, platform_contract_version: '0.9.0' })) meta.run(k, v);
  const readme = db.prepare('INSERT INTO almanac_readme (topic, text) VALUES (?, ?)');
  for (const [topic, text] of README) readme.run(topic, text);
}

const README: [string, string][] = [
  ['this file', 'One release of almanac (almanac_meta: release id, build date, pipeline and contract versions). almanac_datasets lists its datasets: table, records, versions, coverage, a ready search query (search_query) and the named parameters it takes (search_parameters, a JSON list); almanac_sources every licence and attribution; almanac_upstreams every upstream file with its sha256.'],
  ['a dataset', 'A table named by the dataset id (geography/places -> geography_places): ordinal (the API list order), id, one indexed column per filterable field, search_boost where the API ranks by popularity, and record: the record exactly as the API serves it (JSON; read any field with json_extract(record, \'$.name\')).'],
  ['types', 'Each column has the type its field has in the record schema: INTEGER (booleans as 0 and 1), REAL, or TEXT. Dates and times are ISO 8601 text (2026-01-01, 2024-12-03T12:00:00Z), which compare and sort as dates: date >= \'2026-01-01\'. A number is never stored as text, so length_ft >= 10000 compares numbers.'],
  ['lists', 'A filterable field holding a list has a table of its own, <table>__<field> (two underscores; ordinal, value), indexed by value: join it to the dataset table on ordinal.'],
  ['aliases', '<table>__aliases (alias, ordinal): other names and codes the API accepts in /{id}, lower case. An alias shared by several records has several rows.'],
  ['search', '<table>__fts is an FTS5 index over the fields the API searches (rowid = ordinal). A dataset table\'s search_query ranks as the API does: records with every word whole first, then bm25 with the API field boosts, times search_boost. It takes :words, the words quoted ("north" "dakota"), and :prefixes, each word of 3 letters or more also as a prefix ("north"* "dakota"*).'],
  ['scripture', 'verses (translation, reference such as john.3.16, book, chapter, verse, text, record) holds every translation of the file. book is a code (gen, john, 1cor): books lists each translation\'s books in canon order with code, OSIS id, name, canon_group (old, new, apocrypha), chapters and verses. verses_fts searches the text: a translation\'s search_query takes :query, an FTS5 query with each word quoted ("love" "your" "enemies"), and :translation, the translation\'s code (kjv). study_layers, study_tokens and study_morphology hold the word-study layers: each token with its layer, references, lemma, Strong number, morphology code (decoded in study_morphology), status, confidence and licence.'],
  ['statistics', 'The file was analysed when written (ANALYZE: sqlite_stat1), so SQLite picks the most selective index for a query on several columns.'],
  ['licences', 'Each dataset keeps its own licence and attribution (almanac_sources); share-alike and attribution terms apply to what you make from it.'],
];
