/**
 * Turns a stored study record (sources/scripture/study/tokens.ts: compact tuples) into
 * the documented source panels and token objects, applying the study filters and the
 * review overlay. Morphology codes are decoded here, once per distinct code (cached).
 */
import type { StudyRecord, StudySummary } from '../../sources/scripture/study/dataset.ts';
import { ALIGNMENT_OF } from '../../sources/scripture/study/english.ts';
import type { LayerMeta } from '../../sources/scripture/study/layer.ts';
import { decodeMorphGnt } from '../../sources/scripture/study/morph-morphgnt.ts';
import { decodeOshb } from '../../sources/scripture/study/morph-oshb.ts';
import { decodeRobinson } from '../../sources/scripture/study/morph-robinson.ts';
import { CONFIDENCES, GENERATED, STATUSES, tokenId, type StoredPanel, type TokenTuple } from '../../sources/scripture/study/tokens.ts';
import type { ReviewStore } from '../state/reviews.ts';

export interface StudyFilters {
  verifiedOnly: boolean;
  includeGenerated: boolean;
  role?: string;
  confidence?: string;
  reviewStatus?: string;
}
export type LayerInfo = LayerMeta;

const decoded = new Map<string, Record<string, unknown>>();
/** The source's code and its decoded parts; OSHB: per-morpheme segments plus the main word's parts. */
function morphology(layer: string, code: string, lemma: string | null): Record<string, unknown> {
  const k = `${layer}|${code}|${lemma ?? ''}`;
  let d: Record<string, unknown> | undefined = decoded.get(k);
  if (!d) {
    if (layer.startsWith('oshb-')) {
      const o = decodeOshb(code);
      // The main morpheme is the one whose lemma part is a Strong's number ("b/7225" → 2nd).
      const parts = (lemma ?? '').split('/');
      let main = parts.findIndex((p) => /^\d/.test(p.trim()));
      if (main < 0 || parts.length !== o.segments.length) main = o.segments.findIndex((s) => !['conjunction', 'preposition', 'suffix'].includes(s.part_of_speech) && s.type !== 'definite article');
      d = { ...(o.segments[main < 0 ? 0 : main] ?? {}), segments: o.segments };
    } else if (layer === 'sblgnt') {
      const [pos, parse] = code.split(' ');
      d = decodeMorphGnt(pos, parse);
    } else d = decodeRobinson(code);
    decoded.set(k, d);
  }
  return { code, ...d };
}

function tokenObject(layer: LayerInfo, ref: string, t: TokenTuple | string, position: number, glosses: Record<string, string>,
  links: (i: number) => string | undefined, reviews: ReviewStore) {
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
  if (Array.isArray(extra)) {
    out.english = text;
    out.aligned_tokens = extra.map(links).filter(Boolean);
  } else if (extra) Object.assign(out, extra);
  return out;
}

function keep(tok: Record<string, unknown>, f: StudyFilters): boolean {
  if (f.verifiedOnly && !tok.verified_by_service) return false;
  if (!f.includeGenerated && tok.generated) return false;
  if (f.confidence && tok.confidence !== f.confidence) return false;
  if (f.reviewStatus && tok.review_status !== f.reviewStatus) return false;
  return true;
}

/** The panels of one record for a study of `translation` (its own alignment layer only). */
export function panelsOf(record: StudyRecord, translation: string, reference: string, layers: Map<string, LayerInfo>, f: StudyFilters, reviews: ReviewStore) {
  const nt = (layers.get('byzantine-rp2018') && record.panels.some((p) => p.layer === 'byzantine-rp2018'));
  // English links index the record's source tokens the alignment was made against, in panel order.
  const sources = record.panels.filter((p) => (nt ? p.layer === 'byzantine-rp2018' : p.layer.startsWith('oshb-')));
  const flat = sources.flatMap((p) => p.tokens.map((t, i) => ({ p, t: t as TokenTuple, ref: p.refs[p.ref_of?.[i] ?? 0] })));
  const links = (i: number) => (flat[i] ? tokenId(flat[i].p.layer, flat[i].ref, flat[i].t[0]) : undefined);
  const out: Record<string, unknown>[] = [];
  const own = Object.keys(ALIGNMENT_OF).find((l) => ALIGNMENT_OF[l] === translation);
  const aligned = own && record.aligned?.[own] ? [JSON.parse(record.aligned[own]) as StoredPanel] : [];
  for (const p of [...record.panels, ...aligned]) {
    const layer = layers.get(p.layer);
    if (!layer) continue;
    if (layer.generated && ALIGNMENT_OF[p.layer] !== translation) continue;
    if (f.role && layer.role.toLowerCase() !== f.role) continue;
    const counters = new Map<number, number>();
    const tokens = p.tokens.map((t, i) => {
      const r = p.ref_of?.[i] ?? 0;
      const position = (counters.get(r) ?? 0) + 1;
      counters.set(r, position);
      return tokenObject(layer, p.refs[r], t, position, record.glosses, links, reviews);
    }).filter((t) => keep(t, f));
    out.push({
      layer: layer.id, name: layer.name, language: layer.language, generated: layer.generated, reference, study_key: record.id,
      source_text: { id: layer.id, name: layer.name, source_role: layer.role, kind: layer.kind, language: layer.language, version: layer.version },
      source_reference: p.refs.join(','), source_references: p.refs,
      // Attribution once per response (meta.sources), not once per panel of a 100-verse range.
      licence: layer.provenance.map((x) => x.licence),
      tokens_total: p.tokens.length, token_count: tokens.length, tokens,
    });
  }
  return out;
}

/** Layer metadata by id, from the manifest summary (cached per summary object, i.e. per release). */
const tables = new WeakMap<StudySummary, Map<string, LayerInfo>>();
export function layerTable(summary: StudySummary): Map<string, LayerInfo> {
  let t = tables.get(summary);
  if (!t) tables.set(summary, (t = new Map(summary.layers.map((l) => [l.id, l]))));
  return t;
}
