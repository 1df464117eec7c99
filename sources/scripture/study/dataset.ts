/**
 * The study dataset: every layer's tokens gathered under one record per verse, keyed by
 * the verse's KJV-style study key (`gen.1.1`; see versification.ts), in canon order.
 * A study or morphology lookup of one verse is then one key bucket and one pack (two
 * files), whatever the number of layers. Records built by the generic pipeline like any
 * dataset (validated, packed, hashed into the manifest); the summary carries the
 * per-layer counts /source-texts and /source-coverage serve, counted here once.
 */
import { defineSource, type DatasetSource, type InputSpec } from '../../contract.ts';
import { readVerseMap } from '../../readers/oshb.ts';
import { BOOKS } from '../books.ts';
import { ENGLISH_LAYERS } from './english.ts';
import { byzantineLayer, sblgntLayer } from './greek.ts';
import { ABSENT_LAYERS, type LayerMeta, type LayerVerse, type ReadContext, type StudyLayer } from './layer.ts';
import { LEXICON_INPUTS, LEXICON_PROVENANCE, Lexicon } from './lexicon.ts';
import { WHITAKER_PROVENANCE } from './latin.ts';
import { oshbLayer } from './oshb.ts';
import { septuagintLayer } from './septuagint.ts';
import { peshittaLayer, vulgateLayer } from './sword-layers.ts';
import { STATUSES, type StoredPanel, type TokenTuple } from './tokens.ts';
import { HebrewMap, key, studyKeys, type Ref } from './versification.ts';
import type { PlacedVerse, PlacementCheck } from './placement-check.ts';
import { KJV_CHECK_INPUTS, checkLayers, kjvCheckText, tokenUnits } from './placements.ts';

export const STUDY_DATASET = 'bible-study';
/** Source layers first (OSHB before the Greek, whose tokens the alignment needs), generated last. */
export const STUDY_LAYERS: StudyLayer[] = [oshbLayer, sblgntLayer, byzantineLayer, septuagintLayer, vulgateLayer, peshittaLayer, ...ENGLISH_LAYERS];

export interface StudyRecord {
  id: string;
  book: string;
  chapter: number;
  verse: number;
  panels: StoredPanel[];
  /**
   * Generated alignment panels by layer, each kept as a JSON string: a study shows only
   * its own translation's, so the others are never parsed (they are half the bytes).
   */
  aligned?: Record<string, string>;
  /** Strong's number → short gloss, for the numbers this record's tokens carry. */
  glosses: Record<string, string>;
}

export interface LayerCount {
  verses: number;
  /**
   * Where the layer's verses went (issue 25: none silently dropped): under their own
   * number, under another by a numbering table, only under the Vulgate's numbering (the
   * additions the KJV lacks, for the Douay-Rheims and WEB Catholic), or nowhere (listed).
   */
  placement: { same_number: number; by_table: number; vulgate_numbering_only: number; unplaced: number; unplaced_references: string[] };
  tokens: number;
  token_statuses: Record<string, number>;
  confidence: Record<string, number>;
  canon_coverage: Record<'old' | 'new' | 'apocrypha', { verses: number }>;
  /** Every placement checked by content (placement-check.ts); null when the KJV's files were missing. */
  placement_check?: PlacementCheck | null;
}
export interface StudySummary {
  layers: (LayerMeta & { present: true; counts: LayerCount })[];
  absent: { id: string; name: string; language: string; role: string; kind: string; canon: string[]; reason: string }[];
  records: number;
}

const ORDER = new Map(BOOKS.map((b, i) => [b.osis.toLowerCase(), i]));
const GROUP = new Map(BOOKS.map((b) => [b.osis.toLowerCase(), b.group]));
const emptyCount = (): LayerCount => ({
  verses: 0, placement: { same_number: 0, by_table: 0, vulgate_numbering_only: 0, unplaced: 0, unplaced_references: [] }, tokens: 0, token_statuses: Object.fromEntries(STATUSES.map((s) => [s, 0])), confidence: { high: 0, medium: 0, low: 0 },
  canon_coverage: { old: { verses: 0 }, new: { verses: 0 }, apocrypha: { verses: 0 } },
});

export function studyDataset(layers: StudyLayer[] = STUDY_LAYERS): DatasetSource<StudyRecord> {
  let summary: StudySummary = { layers: [], absent: [], records: 0 };
  const inputs: Record<string, InputSpec> = {
    ...LEXICON_INPUTS,
    verseMap: { kind: 'npm-file', package: 'morphhb', file: 'wlc/VerseMap.xml', format: 'text' },
    ...KJV_CHECK_INPUTS,
  };
  for (const l of layers) Object.assign(inputs, l.inputs);
  const metas = layers.flatMap((l) => l.layers);
  return defineSource<StudyRecord>({
    id: STUDY_DATASET,
    title: 'Scripture word-study layers',
    description: 'Source-language and tradition layers with word tokens, lemmas, Strong\'s numbers, morphology and generated English alignment.',
    contractVersion: '0.1.0',
    // Whitaker's WORDS is listed with the Latin layer: its candidates are served where the build machine had it.
    provenance: [...new Map([...metas.flatMap((m) => m.provenance), ...(layers.includes(vulgateLayer) ? [WHITAKER_PROVENANCE] : []), LEXICON_PROVENANCE].map((p) => [p.name, p])).values()],
    inputs,
    schema: {
      type: 'object', additionalProperties: false, required: ['id', 'book', 'chapter', 'verse', 'panels', 'glosses'],
      properties: {
        // `vulg:dan.3.24`: a Vulgate verse the KJV has no counterpart for, in the Vulgate's numbering.
        id: { type: 'string', pattern: '^(vulg:)?[0-9a-z]+\\.[1-9][0-9]*\\.[0-9]+$' },
        book: { type: 'string' }, chapter: { type: 'integer', minimum: 1 }, verse: { type: 'integer', minimum: 0 },
        aligned: { type: 'object', additionalProperties: { type: 'string' } },
        panels: {
          type: 'array',
          items: {
            type: 'object', additionalProperties: false, required: ['layer', 'refs', 'tokens'],
            properties: {
              layer: { enum: metas.map((m) => m.id) },
              refs: { type: 'array', minItems: 1, items: { type: 'string' } },
              ref_of: { type: 'array', items: { type: 'integer', minimum: 0 } },
              shared: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
              // Per-token shape is checked by the layer modules (tuple()); a full per-token schema
              // costs ~3.3M validations per build.
              tokens: { type: 'array', items: { type: ['string', 'array'] } },
            },
          },
        },
        glosses: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
    search: { fields: [] },
    filters: [],
    // ~7 KB a record: 100 to a pack keeps packs near 0.7 MB, as other datasets' (a cold
    // verse reads and checks its whole pack; at 1,000 records that was 7 MB, ~40 ms).
    packSize: 100,
    slow: true,
    // Layer verses numbered differently from their record (`oshb-hebrew:mal.3.19`, for
    // token ids) resolve by alias.
    aliases: (r) => r.panels.flatMap((p) => p.refs.filter((x) => x !== r.id).map((x) => `${p.layer}:${x}`)),
    order: (a, b) => (ORDER.get(a.book)! - ORDER.get(b.book)!) || a.chapter - b.chapter || a.verse - b.verse || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    normalise(raw) {
      const lexicon = Lexicon.from(raw);
      const kjvText = kjvCheckText(raw);
      if (typeof raw.verseMap !== 'string') throw new Error('morphhb wlc/VerseMap.xml missing');
      const wlcRefs = new Set<string>();
      const hebrew = new HebrewMap(readVerseMap(raw.verseMap), (r) => wlcRefs.has(key(parseRef(r))));
      // KJV keys a layer has no verse under, with the reader's reason (ReadContext.untagged).
      const untagged = new Map<string, Map<string, string>>();
      const ctx: ReadContext = {
        sourceTokens: new Map(),
        studyKeys: (system, ref) => studyKeys(system, ref, hebrew),
        untagged: (layer, system, ref, reason) => {
          const m = untagged.get(layer) ?? untagged.set(layer, new Map()).get(layer)!;
          for (const k of studyKeys(system, ref, hebrew)) m.set(k, reason);
        },
      };
      const intern = interner();
      const records = new Map<string, StudyRecord>();
      const layersOut: StudySummary['layers'] = [];
      const absent: StudySummary['absent'] = ABSENT_LAYERS.map((a) => ({ ...a }));
      for (const layer of layers) {
        const verses = layer.read(raw, lexicon, ctx);
        if (!verses) {
          for (const m of layer.layers) absent.push({ id: m.id, name: m.name, language: m.language, role: m.role, kind: m.kind, canon: m.canon, reason: 'its upstream files were not fetched: npm run fetch needs network, or ALMANAC_MIRROR=<folder of <host>/<path> files>' });
          continue;
        }
        if (layer.layers[0].versification === 'WLC') for (const v of verses) wlcRefs.add(key(v.ref));
        const counts = new Map(layer.layers.map((m) => [m.id, emptyCount()]));
        const placed = new Map<string, PlacedVerse[]>(layer.layers.map((m) => [m.id, []]));
        for (const v of verses) {
          const m = layer.layers.find((x) => x.id === v.layer)!;
          if (!m.generated) internTokens(v.tokens, intern);
          const keys = studyKeys(m.numbering ?? m.versification, v.ref, hebrew, v.label);
          if (kjvText) placed.get(m.id)!.push({ ref: v.label ?? key(v.ref), keys, units: tokenUnits(v.tokens, m.language) });
          add(records, ctx, lexicon, m, v, keys, counts.get(m.id)!);
        }
        // Every placement checked by content (issue 36), the layers of one module together.
        const checks = kjvText ? checkLayers(kjvText, placed) : new Map();
        for (const [id, c] of checks) {
          const why = untagged.get(id);
          if (why) for (const k of c.uncovered_references) if (!c.uncovered_reasons[k] && why.has(k)) c.uncovered_reasons[k] = why.get(k)!;
        }
        for (const m of layer.layers) {
          layersOut.push({ ...m, present: true, counts: { ...counts.get(m.id)!, placement_check: checks.get(m.id) ?? null } });
        }
        // A generated layer's panels become their JSON strings as soon as the layer is
        // placed (no later layer adds to them): held as token tuples, one translation's
        // take ~300 MB, and the three at once were the build's peak.
        const generated = new Set(layer.layers.filter((m) => m.generated).map((m) => m.id));
        if (generated.size) for (const r of records.values()) toAligned(r, generated);
      }
      const out = [...records.values()];
      summary = { layers: layersOut, absent, records: out.length };
      return out;
    },
    summary: () => summary,
  });
}

/**
 * One copy of each distinct string. The source layers' ~1.3 million tokens repeat the
 * same surface words, lemmas, Strong's numbers and morphology codes, and each reader
 * makes a new string for every occurrence (~130 MB of duplicates in the records). A
 * string of 13 characters or more may be a V8 slice that pins the whole input file it
 * was cut from: the copy kept is made flat, `(' ' + s).slice(1)`, so it pins only itself.
 */
function interner(): (s: string) => string {
  const seen = new Map<string, string>();
  return (s) => {
    let t = seen.get(s);
    if (t === undefined) seen.set(s, (t = s.length < 13 ? s : (' ' + s).slice(1)));
    return t;
  };
}

/** A layer verse's token strings (surface, lemma, Strong's number, morphology) replaced by their interned copies. */
function internTokens(tokens: (TokenTuple | string)[], intern: (s: string) => string) {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (typeof t === 'string') { tokens[i] = intern(t); continue; }
    for (let f = 1; f <= 4; f++) if (typeof t[f] === 'string') t[f] = intern(t[f] as string);
    // An OSHB qere is cut from its book's XML: interned, it does not keep the file alive.
    const extra = t[7] as { qere?: unknown } | undefined;
    if (extra && typeof extra.qere === 'string') extra.qere = intern(extra.qere);
  }
}

/** Moves the record's panels of the given (generated) layers to `aligned`, as JSON, in panel order. */
function toAligned(r: StudyRecord, generated: Set<string>) {
  if (!r.panels.some((p) => generated.has(p.layer))) return;
  for (const p of r.panels) if (generated.has(p.layer)) (r.aligned ??= {})[p.layer] = JSON.stringify(p);
  r.panels = r.panels.filter((p) => !generated.has(p.layer));
}

const parseRef = (osis: string): Ref => {
  const [book, c, v] = osis.split('.');
  return { book, chapter: Number(c), verse: Number(v) };
};

function add(records: Map<string, StudyRecord>, ctx: ReadContext, lexicon: Lexicon, m: LayerMeta, v: LayerVerse, keys: string[], count: LayerCount) {
  const ref = v.label ?? key(v.ref);
  count.verses++;
  const placed = count.placement;
  if (!keys.length && m.versification === 'Vulg') { keys = [`vulg:${ref}`]; placed.vulgate_numbering_only++; }
  else if (!keys.length) { placed.unplaced++; placed.unplaced_references.push(ref); }
  else if (keys.length === 1 && keys[0] === ref) placed.same_number++;
  else placed.by_table++;
  const group = GROUP.get(v.ref.book.toLowerCase());
  if (group) count.canon_coverage[group].verses++;
  for (const t of v.tokens) {
    count.tokens++;
    if (typeof t === 'string') { count.token_statuses.pending++; count.confidence.low++; continue; }
    count.token_statuses[STATUSES[t[5]]]++;
    count.confidence[['high', 'medium', 'low'][t[6]]]++;
  }
  for (const k of keys) {
    let r = records.get(k);
    if (!r) {
      const [book, chapter, verse] = k.replace(/^vulg:/, '').split('.');
      if (!ORDER.has(book)) throw new Error(`${m.id}: verse ${ref} maps to ${k}, a book no versification knows`);
      records.set(k, (r = { id: k, book, chapter: Number(chapter), verse: Number(verse), panels: [], glosses: {} }));
    }
    let p = r.panels.find((x) => x.layer === m.id);
    if (!p) r.panels.push((p = { layer: m.id, refs: [], tokens: [] }));
    // A layer verse under several KJV verses (SBLGNT 2 Cor 13:12 = KJV 13:12–13) says so, for the panel's note.
    if (keys.length > 1) (p.shared ??= {})[ref] = keys;
    let idx = p.refs.indexOf(ref);
    if (idx < 0) { idx = p.refs.push(ref) - 1; if (idx > 0) p.ref_of ??= p.tokens.map(() => 0); }
    if (v.glosses) for (const [g, meaning] of Object.entries(v.glosses)) r.glosses[g] = meaning;
    for (const t of v.tokens) {
      p.tokens.push(t);
      p.ref_of?.push(idx);
      const strong = typeof t === 'string' ? null : t[3];
      if (strong && !Object.hasOwn(r.glosses, strong)) {
        const g = lexicon.gloss(strong);
        if (g) r.glosses[strong] = g;
      }
    }
    if (m.role === 'Original Language') {
      const list = ctx.sourceTokens.get(k) ?? ctx.sourceTokens.set(k, []).get(k)!;
      list.push({ layer: m.id, ref, tokens: v.tokens.filter((t): t is TokenTuple => typeof t !== 'string') });
    }
  }
}
