/**
 * Turns a stored study record (sources/scripture/study/tokens.ts: compact tuples) into
 * the documented source panels and token objects, applying the study filters and the
 * review overlay. Morphology codes are decoded here, once per distinct code (cached).
 */
import type { StudyRecord, StudySummary } from '../../../sources/scripture/study/dataset.ts';
import { ALIGNMENT_OF, englishLinks } from '../../../sources/scripture/study/english.ts';
import type { LayerMeta } from '../../../sources/scripture/study/layer.ts';
import { LATIN_LAYER, morphology } from '../../../sources/scripture/study/morphology.ts';
import { headword } from '../../../sources/scripture/study/latin.ts';
import { CONFIDENCES, GENERATED, STATUSES, tokenId, type StoredPanel, type TokenTuple } from '../../../sources/scripture/study/tokens.ts';
import type { ReviewView } from '../../state/reviews.ts';
import { headOf, latinJson, morphologyJson, partsOf, type LatinExtra } from './study-json-parts.ts';

export interface StudyFilters {
  verifiedOnly: boolean;
  includeGenerated: boolean;
  role?: string;
  confidence?: string;
  reviewStatus?: string;
}
export type LayerInfo = LayerMeta;

function tokenObject(layer: LayerInfo, ref: string, t: TokenTuple | string, position: number, glosses: Record<string, string>,
  links: (i: number) => string | undefined, reviews: ReviewView) {
  const tup: TokenTuple = typeof t === 'string' ? [position, t, null, null, null, STATUSES.indexOf('pending'), 2] : t;
  const [pos, text, lemma, strong, morph, s, c, extra] = tup;
  const id = tokenId(layer.id, ref, pos);
  const status = STATUSES[s];
  const review = reviews.get(id);
  const m = morph ? morphology(layer.id, morph, lemma) : null;
  const out: Record<string, unknown> = {
    id, position: pos, text, language: layer.language, lemma, strong, gloss: strong ? glosses[strong] ?? null : null,
    part_of_speech: (m?.part_of_speech as string | undefined) ?? null, morphology: m,
    study_status: status, confidence: CONFIDENCES[c], generated: GENERATED.has(status),
    verified_by_service: review?.decision === 'verified',
    review_status: review ? review.decision : status === 'review-needed' ? 'needs-review' : 'unreviewed',
    review_notes: review ? review.history.map((h) => ({ decision: h.decision, note: h.note, reviewer: h.reviewer, at: h.at })) : [],
    reviewed_at: review?.at ?? null,
    source: layer.id, source_reference: ref, licence: layer.provenance.map((p) => p.licence.spdx),
  };
  const en = english(layer, extra);
  if (layer.id === LATIN_LAYER && typeof t !== 'string') Object.assign(out, latinFields(layer.id, lemma, morph, extra as LatinExtra | undefined, glosses));
  else if (en) {
    out.english = text;
    out.aligned_tokens = en.aligned.map(links).filter(Boolean);
    out.suggested_tokens = en.suggested.map(links).filter(Boolean);
  } else if (extra) Object.assign(out, extra);
  return out;
}

/** An English alignment word's links and suggested tokens (sources/scripture/study/english.ts), or null for other layers. */
const english = (layer: LayerInfo, extra: unknown) => (Array.isArray(extra) ? englishLinks(extra) : null);

/**
 * Latin tokens store the dictionary line in the lemma slot and, when ambiguous, the
 * candidates by entry; shown as the headword (`lemma`), `dictionary_form`, the meaning as
 * `gloss`, and every candidate with its own decoded morphology.
 */
function latinFields(layer: string, entry: string | null, code: string | null, extra: LatinExtra | undefined, glosses: Record<string, string>) {
  const candidates = extra?.candidates?.flatMap(([e, ...codes]) => codes.map((c) => {
    const m = morphology(layer, c, null);
    return { lemma: headword(e), dictionary_form: e, gloss: glosses[`la:${e}`] ?? null, part_of_speech: m.part_of_speech ?? null, morphology: m };
  }));
  return {
    lemma: entry ? headword(entry) : null,
    dictionary_form: candidates ? null : entry,
    gloss: entry && !candidates ? glosses[`la:${entry}`] ?? null : null,
    ...(code ? {} : { part_of_speech: candidates && new Set(candidates.map((c) => c.part_of_speech)).size === 1 ? candidates[0].part_of_speech : null }),
    ...(candidates ? { candidates } : {}),
  };
}

/** Tokens written through tokenObject and JSON.stringify since the process started (the slow path; tests watch it). */
let slowTokens = 0;
export const slowTokenCount = () => slowTokens;

function keep(tok: Record<string, unknown>, f: StudyFilters): boolean {
  if (f.verifiedOnly && !tok.verified_by_service) return false;
  if (!f.includeGenerated && tok.generated) return false;
  if (f.confidence && tok.confidence !== f.confidence) return false;
  if (f.reviewStatus && tok.review_status !== f.reviewStatus) return false;
  return true;
}

const q = JSON.stringify;
/** Keys a stored `extra` object may not carry for the fast path (it would override one of these). */
const BASE_KEYS = new Set(['id', 'position', 'text', 'language', 'lemma', 'strong', 'gloss', 'part_of_speech', 'morphology', 'study_status',
  'confidence', 'generated', 'verified_by_service', 'review_status', 'review_notes', 'reviewed_at', 'source', 'source_reference', 'licence']);

/**
 * The token as JSON text, or null when the filters drop it: the same JSON as
 * JSON.stringify(tokenObject(…)) (tested), written directly. A cold 100-verse range
 * expands ~3,000 tokens; building 20-field objects and then serializing them was most of
 * its time (profiled with bench/study.ts).
 */
function tokenJson(layer: LayerInfo, ref: string, refJson: string, t: TokenTuple | string, position: number, glosses: Record<string, string>,
  links: (i: number) => string | undefined, reviews: ReviewView, f: StudyFilters): string | null {
  const tup = typeof t === 'string' ? null : t;
  const extra = tup?.[7];
  const latin = tup !== null && layer.id === LATIN_LAYER;
  if (!latin && extra && !Array.isArray(extra) && Object.keys(extra).some((k) => BASE_KEYS.has(k))) {
    slowTokens++;
    const o = tokenObject(layer, ref, t, position, glosses, links, reviews);
    return keep(o, f) ? q(o) : null;
  }
  const pos = tup ? tup[0] : position;
  const status = tup ? STATUSES[tup[5]] : 'pending';
  const confidence = tup ? CONFIDENCES[tup[6]] : 'low';
  const generated = GENERATED.has(status);
  const id = tokenId(layer.id, ref, pos);
  const review = reviews.get(id);
  const verified = review?.decision === 'verified';
  const reviewStatus = review ? review.decision : status === 'review-needed' ? 'needs-review' : 'unreviewed';
  if ((f.verifiedOnly && !verified) || (!f.includeGenerated && generated) || (f.confidence && confidence !== f.confidence)
    || (f.reviewStatus && reviewStatus !== f.reviewStatus)) return null;
  const text = tup ? tup[1] : (t as string);
  const lemma = tup ? tup[2] : null;
  const strong = tup ? tup[3] : null;
  const morph = tup ? tup[4] : null;
  const [mj, partOfSpeech] = morph ? morphologyJson(layer.id, morph, lemma) : ['null', null];
  const lp = partsOf(layer);
  // A Latin token's fields (latinFields) in the places Object.assign gave them: lemma,
  // gloss and part_of_speech where they were, dictionary_form and candidates at the end.
  const la = latin ? latinJson(layer.id, lemma, morph, partOfSpeech, extra as LatinExtra | undefined, glosses) : null;
  let out = `{"id":${q(id)},"position":${pos},"text":${q(text)}${lp.language},"lemma":${la ? la.lemma : q(lemma)},"strong":${q(strong)}`
    + `,"gloss":${la ? la.gloss : q(strong ? glosses[strong] ?? null : null)}`
    + `,"part_of_speech":${la ? la.partOfSpeech : q(partOfSpeech)},"morphology":${mj},"study_status":"${status}","confidence":"${confidence}","generated":${generated}`
    + `,"verified_by_service":${verified},"review_status":"${reviewStatus}","review_notes":${review ? q(review.history.map((h) => ({ decision: h.decision, note: h.note, reviewer: h.reviewer, at: h.at }))) : '[]'}`
    + `,"reviewed_at":${review ? q(review.at) : 'null'}${lp.source},"source_reference":${refJson}${lp.licence}`;
  const en = latin ? null : english(layer, extra);
  if (la) out += la.tail;
  else if (en) out += `,"english":${q(text)},"aligned_tokens":${q(en.aligned.map(links).filter(Boolean))},"suggested_tokens":${q(en.suggested.map(links).filter(Boolean))}`;
  else if (extra && !la) {
    const e = q(extra);
    if (e.length > 2) out += `,${e.slice(1, -1)}`;
  }
  return `${out}}`;
}

/** What a record's panels share for one study: the source tokens English links point to, and the alignment panel. */
function prepare(record: StudyRecord, translation: string, layers: Map<string, LayerInfo>) {
  const nt = (layers.get('byzantine-rp2018') && record.panels.some((p) => p.layer === 'byzantine-rp2018'));
  // English links index the record's source tokens the alignment was made against, in panel order.
  const sources = record.panels.filter((p) => (nt ? p.layer === 'byzantine-rp2018' : p.layer.startsWith('oshb-')));
  const flat = sources.flatMap((p) => p.tokens.map((t, i) => ({ p, t: t as TokenTuple, ref: p.refs[p.ref_of?.[i] ?? 0] })));
  const links = (i: number) => (flat[i] ? tokenId(flat[i].p.layer, flat[i].ref, flat[i].t[0]) : undefined);
  const own = Object.keys(ALIGNMENT_OF).find((l) => ALIGNMENT_OF[l] === translation);
  const aligned = own && record.aligned?.[own] ? [JSON.parse(record.aligned[own]) as StoredPanel] : [];
  return { links, panels: [...record.panels, ...aligned] };
}

/** The panels a study of `translation` shows: layers it knows, its own alignment only, the role filter. */
export function* shown<P extends { layer: string }>(panels: P[], translation: string, layers: Map<string, LayerInfo>, f: StudyFilters) {
  for (const p of panels) {
    const layer = layers.get(p.layer);
    if (!layer) continue;
    if (layer.generated && ALIGNMENT_OF[p.layer] !== translation) continue;
    if (f.role && layer.role.toLowerCase() !== f.role) continue;
    yield { p, layer };
  }
}

/**
 * The panels of one record for a study of `translation`, as JSON text without the
 * enclosing brackets (`{…},{…}`), and how many: what the server sends and caches.
 */
export function panelsJson(record: StudyRecord, translation: string, reference: string, layers: Map<string, LayerInfo>, f: StudyFilters, reviews: ReviewView,
  hide?: (p: StoredPanel) => boolean): [string, number] {
  // Links from the whole record (its alignment indexes all its source tokens), whatever is hidden.
  const { links, panels } = prepare(record, translation, layers);
  const out: string[] = [];
  for (const { p, layer } of shown(hide ? panels.filter((x) => !hide(x) || !record.panels.includes(x)) : panels, translation, layers, f)) {
    const tokens = panelTokensJson(record, p, layer, links, reviews, f);
    out.push(`${panelHead(p, layer, reference, record.id, translation, p.tokens.length, tokens.length)}${tokens.join(',')}]}`);
  }
  return [out.join(','), out.length];
}

/** A panel's tokens as JSON texts (those the filters keep), in order. */
function panelTokensJson(record: StudyRecord, p: StoredPanel, layer: LayerInfo, links: (i: number) => string | undefined, reviews: ReviewView, f: StudyFilters): string[] {
  const counters = new Map<number, number>();
  const refJson = p.refs.map((r) => q(r));
  const tokens: string[] = [];
  p.tokens.forEach((t, i) => {
    const r = p.ref_of?.[i] ?? 0;
    const position = (counters.get(r) ?? 0) + 1;
    counters.set(r, position);
    const j = tokenJson(layer, p.refs[r], refJson[r], t, position, record.glosses, links, reviews, f);
    if (j !== null) tokens.push(j);
  });
  return tokens;
}

/**
 * A panel's JSON up to and including the `[` that opens its tokens: the same keys in the
 * same order as panelsOf's object (tested byte for byte). The tokens and `]}` follow.
 */
export function panelHead(p: Pick<StoredPanel, 'refs' | 'shared'>, layer: LayerInfo, reference: string, studyKey: string, translation: string, total: number, count: number): string {
  const lp = headOf(layer);
  const v = versification(p, reference, studyKey, translation).versification;
  return `${lp.start},"reference":${q(reference)},"study_key":${q(studyKey)}${lp.sourceText},"source_reference":${q(p.refs.join(','))}`
    + `,"source_references":${q(p.refs)}${v ? `,"versification":${q(v)}` : ''}${lp.licence},"tokens_total":${total},"token_count":${count}`
    + ',"tokens":[';
}

/**
 * Every panel a record can show in any study, its own and each translation's alignment,
 * with its tokens as JSON text in the default view (no filter, no review in force): what
 * the build stores per record (study-panels.ts) so a range need not expand the tuples.
 */
export function allPanelTokens(record: StudyRecord, layers: Map<string, LayerInfo>, reviews: ReviewView): { key?: string; panel: StoredPanel; tokens: string }[] {
  const { links } = prepare(record, '', layers);
  const out: { key?: string; panel: StoredPanel; tokens: string }[] = [];
  const all: { key?: string; panel: StoredPanel }[] = [
    ...record.panels.map((panel) => ({ panel })),
    ...Object.entries(record.aligned ?? {}).map(([key, json]) => ({ key, panel: JSON.parse(json) as StoredPanel })),
  ];
  for (const { key, panel } of all) {
    const layer = layers.get(panel.layer);
    if (!layer) continue;
    out.push({ ...(key ? { key } : {}), panel, tokens: panelTokensJson(record, panel, layer, links, reviews, DEFAULT_VIEW).join(',') });
  }
  return out;
}
const DEFAULT_VIEW: StudyFilters = { verifiedOnly: false, includeGenerated: true };

/** The panels of one record for a study of `translation` (its own alignment layer only), as objects (the review command). */
export function panelsOf(record: StudyRecord, translation: string, reference: string, layers: Map<string, LayerInfo>, f: StudyFilters, reviews: ReviewView) {
  const { links, panels } = prepare(record, translation, layers);
  const out: Record<string, unknown>[] = [];
  for (const { p, layer } of shown(panels, translation, layers, f)) {
    const counters = new Map<number, number>();
    const tokens = p.tokens.map((t, i) => {
      const r = p.ref_of?.[i] ?? 0;
      const position = (counters.get(r) ?? 0) + 1;
      counters.set(r, position);
      return tokenObject(layer, p.refs[r], t, position, record.glosses, links, reviews);
    }).filter((t) => keep(t, f));
    out.push({
      layer: layer.id, name: layer.name, language: layer.language, generated: layer.generated, reference, study_key: record.id,
      source_text: { id: layer.id, name: layer.name, source_role: layer.role, kind: layer.kind, language: layer.language, version: layer.version, ...(layer.note ? { note: layer.note } : {}) },
      source_reference: p.refs.join(','), source_references: p.refs,
      ...versification(p, reference, record.id, translation),
      // Attribution once per response (meta.sources), not once per panel of a 100-verse range.
      licence: layer.provenance.map((x) => x.licence),
      tokens_total: p.tokens.length, token_count: tokens.length, tokens,
    });
  }
  return out;
}

const readable = (ref: string) => {
  const [book, c, v] = ref.replace(/^vulg:/, '').split('.');
  return `${book} ${c}:${v}`;
};
/**
 * A note when the panel's verse is not simply the translation's verse under the same
 * number (issue 25): the layer numbers it otherwise, several layer verses make it up, or
 * one layer verse covers more than one KJV verse and is shown whole under each.
 */
export function versification(p: Pick<StoredPanel, 'refs' | 'shared'>, reference: string, studyKey: string, translation: string): { versification?: Record<string, unknown> } {
  const shared = p.shared && Object.entries(p.shared);
  if (p.refs.length === 1 && p.refs[0] === reference && !shared) return {};
  const notes: string[] = [];
  if (p.refs.length > 1) notes.push(`${translation} ${readable(reference)} is ${p.refs.map(readable).join(' + ')} in this layer's numbering`);
  else if (p.refs[0] !== reference) notes.push(`${translation} ${readable(reference)} is ${readable(p.refs[0])} in this layer's numbering`);
  for (const [ref, keys] of shared ?? []) notes.push(`${readable(ref)} of this layer spans KJV ${keys.map(readable).join(' and ')}; shown whole under each`);
  return { versification: { reference, study_key: studyKey, source_references: p.refs, ...(shared ? { shared: p.shared } : {}), note: `${notes.join('; ')}.` } };
}

/** Layer metadata by id, from the manifest summary (cached per summary object, i.e. per release). */
const tables = new WeakMap<StudySummary, Map<string, LayerInfo>>();
export function layerTable(summary: StudySummary): Map<string, LayerInfo> {
  let t = tables.get(summary);
  if (!t) tables.set(summary, (t = new Map(summary.layers.map((l) => [l.id, l]))));
  return t;
}
