/**
 * The word-study layers in the offline databases (pipeline/sqlite.ts): every token of
 * every layer as a row, with the references, lemma, Strong number, morphology code,
 * status, confidence and what a generated English token is aligned to; the morphology
 * codes decoded once each (the same decoders as the API: sources/scripture/study/
 * morphology.ts); the glosses; and each layer's licence and attribution.
 *
 * The tokens are the records' compact tuples (sources/scripture/study/tokens.ts) expanded
 * as the API's panels expand them: a bare string is a `pending` token whose position is
 * its place among the tokens of its reference, and a layer verse that two KJV verses share
 * (a partial mapping) is stored once, under the first. Rows are keyed (clustered) by the
 * KJV-numbered verse, so a verse's tokens are one range of the table; `study_token_ids`
 * adds the API's token id (`<layer>:<reference>:<position>`). `text` is NULL where a layer
 * has lemmas but no inflected text (the Septuagint).
 */
import type { StudyRecord, StudySummary } from '../sources/scripture/study/dataset.ts';
import { morphology } from '../sources/scripture/study/morphology.ts';
import { CONFIDENCES, GENERATED, STATUSES, tokenId, type StoredPanel, type TokenTuple } from '../sources/scripture/study/tokens.ts';
import { numberingRows } from '../sources/scripture/versification/numbering.ts';
import type { DatasetInfo } from './shards.ts';
import type Database from 'better-sqlite3';

type Db = Database.Database;

export function studyTables(db: Db, rows: Iterable<{ rec: Record<string, unknown> }>, info: DatasetInfo) {
  const summary = info.summary as StudySummary;
  {
    db.exec(`
      CREATE TABLE study_layers (id TEXT PRIMARY KEY, name TEXT, language TEXT, source_role TEXT, kind TEXT, version TEXT, generated INTEGER,
        versification TEXT, verses INTEGER, tokens INTEGER, licence_spdx TEXT, licence TEXT, attribution TEXT);
      CREATE TABLE study_tokens (study_reference TEXT NOT NULL, layer TEXT NOT NULL, reference TEXT NOT NULL, position INTEGER NOT NULL,
        text TEXT, lemma TEXT, strong TEXT, morphology TEXT, status TEXT NOT NULL, confidence TEXT NOT NULL,
        generated INTEGER NOT NULL, aligned_to TEXT, extra TEXT, PRIMARY KEY (study_reference, layer, reference, position)) WITHOUT ROWID;
      CREATE VIEW study_token_ids AS SELECT layer || ':' || reference || ':' || position AS token_id, * FROM study_tokens;
      CREATE TABLE study_morphology (layer TEXT NOT NULL, code TEXT NOT NULL, lemma TEXT NOT NULL, part_of_speech TEXT, parts TEXT NOT NULL,
        PRIMARY KEY (layer, code, lemma)) WITHOUT ROWID;
      CREATE TABLE study_glosses (key TEXT PRIMARY KEY, gloss TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE study_numbering (translation TEXT NOT NULL, reference TEXT NOT NULL, study_reference TEXT, PRIMARY KEY (translation, reference, study_reference)) WITHOUT ROWID;`);
    // Where a translation's verse sits among the study references when not under its own
    // number (issue 25): one row per KJV verse it is part of; NULL when the KJV lacks it
    // and no Vulgate-numbered study reference has it either. A verse not listed keeps its number.
    const numbering = db.prepare('INSERT OR IGNORE INTO study_numbering VALUES (?, ?, ?)');
    for (const [translation, reference, to] of numberingRows()) numbering.run(translation, reference, to);
    const layer = db.prepare('INSERT INTO study_layers VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    for (const l of summary.layers) {
      layer.run(l.id, l.name, l.language, l.role, l.kind, l.version, l.generated ? 1 : 0, l.versification, l.counts.verses, l.counts.tokens,
        l.provenance.map((p) => p.licence.spdx).join(' AND '), JSON.stringify(l.provenance.map((p) => p.licence)), l.provenance.map((p) => p.attribution).join(' '));
    }
  }
  const token = db.prepare('INSERT INTO study_tokens VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const morph = db.prepare('INSERT INTO study_morphology VALUES (?, ?, ?, ?, ?)');
  const gloss = db.prepare('INSERT INTO study_glosses VALUES (?, ?)');
  const seenMorph = new Set<string>();
  const seenGloss = new Set<string>();
  // A layer verse two KJV verses share (a partial mapping) is stored under the first.
  const seenVerse = new Set<string>();

  for (const { rec } of rows) {
    const r = rec as unknown as StudyRecord;
    const aligned = Object.values(r.aligned ?? {}).map((s) => JSON.parse(s) as StoredPanel);
    // English tokens link to the source tokens they were aligned with, by index into the
    // record's Greek (Byzantine) tokens in the New Testament, else its Hebrew ones.
    const nt = r.panels.some((p) => p.layer === 'byzantine-rp2018');
    const sources = r.panels.filter((p) => (nt ? p.layer === 'byzantine-rp2018' : p.layer.startsWith('oshb-')))
      .flatMap((p) => p.tokens.map((t, i) => tokenId(p.layer, p.refs[p.ref_of?.[i] ?? 0], (t as TokenTuple)[0])));
    for (const [k, g] of Object.entries(r.glosses ?? {})) {
      if (seenGloss.has(k)) continue;
      seenGloss.add(k);
      gloss.run(k, g);
    }
    for (const p of [...r.panels, ...aligned]) {
      const counters = new Map<number, number>();
      const earlier = new Set(p.refs.filter((ref) => seenVerse.has(`${p.layer}|${ref}`)));
      p.tokens.forEach((t, i) => {
        const refIndex = p.ref_of?.[i] ?? 0;
        const ref = p.refs[refIndex];
        if (earlier.has(ref)) return;
        const place = (counters.get(refIndex) ?? 0) + 1;
        counters.set(refIndex, place);
        const tup: TokenTuple = typeof t === 'string' ? [place, t, null, null, null, STATUSES.indexOf('pending'), 2] : t;
        const [pos, text, lemma, strong, code, s, c, extra] = tup;
        const status = STATUSES[s];
        const links = Array.isArray(extra) ? JSON.stringify(extra.map((x) => sources[x]).filter(Boolean)) : null;
        const more = extra && !Array.isArray(extra) ? JSON.stringify(extra) : null;
        token.run(r.id, p.layer, ref, pos, text, lemma, strong, code, status, CONFIDENCES[c], GENERATED.has(status) ? 1 : 0, links, more);
        if (!code) return;
        const mk = `${p.layer}|${code}|${lemma ?? ''}`;
        if (seenMorph.has(mk)) return;
        seenMorph.add(mk);
        const m = morphology(p.layer, code, lemma);
        morph.run(p.layer, code, lemma ?? '', (m.part_of_speech as string | undefined) ?? null, JSON.stringify(m));
      });
      for (const ref of p.refs) seenVerse.add(`${p.layer}|${ref}`);
    }
  }
  // Tokens are clustered by verse (the primary key); by Strong number through an index.
  db.exec('CREATE INDEX study_tokens_strong ON study_tokens(strong) WHERE strong IS NOT NULL;');
}
