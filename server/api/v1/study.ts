/**
 * The word-study half of /api/v1: /study and /morphology (verse and range), the
 * filters, /source-texts and /source-coverage. Everything comes from the `bible-study`
 * dataset (one record per KJV-numbered verse, all layers in it) and its build summary,
 * plus the review overlay (server/state/reviews.ts), which applies at once.
 */
import { createHash } from 'node:crypto';
import { STUDY_DATASET, type StudyRecord, type StudySummary } from '../../../sources/scripture/study/dataset.ts';
import { SOURCE_ROLES } from '../../../sources/scripture/study/layer.ts';
import { STATUSES } from '../../../sources/scripture/study/tokens.ts';
import { kjvKeys, vulgateKey } from '../../../sources/scripture/versification/numbering.ts';
import { ApiError } from '../../http/errors.ts';
import type { Ctx } from '../handlers.ts';
import type { ParamSpec } from '../../http/query.ts';
import type { Part } from '../../http/encoding.ts';
import { Lru } from '../../release/lru.ts';
import { SEARCH_SLICE_MS } from '../../search/search-bounds.ts';
import { slicer } from '../../search/turns.ts';
import type { ReviewView } from '../../state/reviews.ts';
import { REVIEW_VALUES } from './study-schemas.ts';
import { readyPanels } from './study-panels.ts';
import { layerTable, panelsJson, type StudyFilters } from './study-tokens.ts';
import { findBook, verseItems, verseOrdinal, verseRecord, type Translation } from './text.ts';
import type { VerseRecord } from '../../../sources/scripture/dataset.ts';
import { requestedRange } from './references.ts';

/** Longest study or morphology range (the spec: at most 100 verses). */
export const MAX_STUDY_VERSES = 100;

const param = (name: string, description: string, values: readonly string[]): ParamSpec => ({
  name, description: `${description} One of: ${values.join(', ')}.`, schema: { type: 'string', minLength: 1, maxLength: 60 },
});
export const FILTER_PARAMS: ParamSpec[] = [
  param('verified_only', 'Only tokens a person verified (verified_by_service: true).', ['1', '0']),
  param('include_generated', 'include_generated=0 hides generated tokens (rule-aligned, review-needed).', ['1', '0']),
  param('source_role', 'Only panels of layers with this source role (case-insensitive; URL-encode spaces).', SOURCE_ROLES),
  param('confidence', 'Only tokens with this confidence.', ['high', 'medium', 'low']),
  param('review_status', 'Only tokens in this review state (needs-review: the review queue).', REVIEW_VALUES),
];

function choose(ctx: Ctx, name: string, allowed: readonly string[], normalise = (v: string) => v): string | undefined {
  const raw = ctx.query[name];
  if (raw === undefined) return undefined;
  const v = normalise(String(raw));
  if (!allowed.map(normalise).includes(v)) {
    throw new ApiError('invalid_parameter', `parameter '${name}' must be one of: ${allowed.join(', ')}`, { parameter: name, value: String(raw).slice(0, 60), allowed });
  }
  return v;
}

/** Roles compare case-insensitively, with runs of spaces as one. */
const roleKey = (v: string) => v.trim().toLowerCase().replace(/\s+/g, ' ');

export function studyFilters(ctx: Ctx): StudyFilters {
  // A role the spec names that no layer of this release has is not an error (issue 25):
  // the study answers with no panels and says why (absentRoleNote); an unknown role is a 400.
  const role = choose(ctx, 'source_role', SOURCE_ROLES, roleKey);
  return {
    verifiedOnly: choose(ctx, 'verified_only', ['1', '0']) === '1',
    includeGenerated: choose(ctx, 'include_generated', ['1', '0']) !== '0',
    role,
    confidence: choose(ctx, 'confidence', ['high', 'medium', 'low'], (v) => v.toLowerCase()),
    reviewStatus: choose(ctx, 'review_status', REVIEW_VALUES, (v) => v.toLowerCase()),
  };
}

/** meta.source_role_note when the requested source_role has no layer in this release: which layers and why. */
export function absentRoleNote(ctx: Ctx, summary: StudySummary): Record<string, unknown> | undefined {
  const role = ctx.query.source_role === undefined ? undefined : roleKey(String(ctx.query.source_role));
  if (!role || summary.layers.some((l) => l.role.toLowerCase() === role)) return undefined;
  const absent = summary.absent.filter((a) => a.role.toLowerCase() === role);
  return {
    source_role: SOURCE_ROLES.find((r) => r.toLowerCase() === role),
    note: `no layer of this release has this source role, so there are no panels: ${absent.map((a) => `${a.name} (${a.reason})`).join('; ') || 'none is built'}`,
    absent_layers: absent.map((a) => ({ id: a.id, name: a.name, reason: a.reason })),
    present_roles: [...new Set(summary.layers.map((l) => l.role))],
  };
}

export function studyInfo(ctx: Ctx) {
  const info = ctx.release.datasets.get(STUDY_DATASET);
  if (!info) {
    throw new ApiError('dataset_unavailable', 'the word-study layers are not in the live release', { reason: ctx.release.absent[STUDY_DATASET] ?? 'not built' });
  }
  return { info, summary: info.summary as StudySummary };
}

/**
 * The study records for a verse of a translation: the KJV-numbered verses its numbering
 * table places it under (usually one; two where the translation joins two KJV verses),
 * or, for a verse the KJV lacks, the Vulgate-numbered record (Dan 3:24–90 in the
 * Douay-Rheims and the WEB Catholic). Empty when no layer has it: panels are then empty,
 * not an error. The Douay-Rheims' psalms too go through its own table (issue 36; they
 * went through the Vulgate's psalm rule, which put Vulg Ps 10:8 under a KJV Ps 11:8 that
 * does not exist).
 */
async function studyOrdinals(ctx: Ctx, t: Translation, r: { book: string; chapter: number; verse: number }): Promise<number[]> {
  const ref = `${r.book}.${r.chapter}.${r.verse}`;
  let keys = kjvKeys(t.slug, ref);
  if (!keys.length) {
    const v = vulgateKey(t.slug, ref);
    keys = v ? [v] : [];
  }
  const out: number[] = [];
  for (const k of keys) {
    const ord = await ctx.release.lookup(STUDY_DATASET, k);
    if (ord !== undefined) out.push(ord);
  }
  return out;
}

/**
 * A verse's panels, already serialized as UTF-8 JSON without the enclosing brackets
 * (`{…},{…}`, empty when none), in parts to be written one after another (the stored
 * panels' heads and texts, study-panels.ts: not joined twice), and how many there are.
 * Bytes, not a string: a 100-verse range is ~3 MB, and spliced Buffers are hashed (ETag)
 * and written without being encoded to UTF-8 again each time.
 */
export interface StudyVerse { ord: number; reference: string; panels: Part[]; count: number; digest: string }

/**
 * Serialized panels by release, verse, translation, filters and review-file version.
 * Expanding a verse's tuples into token objects and serializing them is most of a study
 * request's work; a review changes the version, so a cached panel never hides one.
 */
let panelCache = new Lru<[Part[], number, string]>(Number(process.env.ALMANAC_STUDY_CACHE_MB ?? 64) * 2 ** 20);
/** Bytes the panel cache holds (tests). */
export const studyCacheHeld = () => panelCache.bytes;
/** Sets the panel cache's budget (the Worker keeps it small: an isolate has 128 MB in all). */
export function studyCacheBytes(bytes: number) {
  panelCache = new Lru(bytes);
}

async function studyOf(ctx: Ctx, t: Translation, ords: number[]): Promise<StudyVerse[]> {
  const { summary } = studyInfo(ctx);
  const f = studyFilters(ctx);
  const reviews = await ctx.reviews();
  const layers = layerTable(summary);
  const fkey = `${f.verifiedOnly}|${f.includeGenerated}|${f.role}|${f.confidence}|${f.reviewStatus}|${reviews.version}`;
  // The verses' own records, read together (one read per pack where reads cost), not one
  // positional read each: ~12 % of a cold range's work.
  const lines = await ctx.release.records(t.ds, ords);
  const at = new Map(ords.map((o, i) => [o, i]));
  const one = async (ord: number): Promise<StudyVerse> => {
    const v = JSON.parse(lines[at.get(ord)!].toString('utf8')) as VerseRecord;
    const key = `${ctx.release.id}|${t.slug}|${v.id}|${fkey}`;
    let hit = ctx.uncached ? undefined : panelCache.get(key);
    if (!hit) {
      const ords = await studyOrdinals(ctx, t, v);
      // The build's ready JSON when it serves this study (study-panels.ts), else expanded here.
      let [bytes, count, digest]: [Part[] | undefined, number, string] = await readyPanels(ctx.release, t.slug, v.id, ords, layers, f, reviews) ?? [undefined, 0, ''];
      if (!bytes) {
        const records: StudyRecord[] = [];
        for (const ord of ords) records.push(JSON.parse((await ctx.release.record(STUDY_DATASET, ord)).toString('utf8')) as StudyRecord);
        // Two records (a verse the KJV splits): each one's panels, a layer verse shown once.
        const parts = records.map((rec, i) => panelsJson(rec, t.slug, v.id, layers, f, reviews, shownBefore(records.slice(0, i))));
        const joined = Buffer.from(parts.map(([j]) => j).filter(Boolean).join(','));
        bytes = [joined];
        count = parts.reduce((n, [, c]) => n + c, 0);
        // The fragment's own hash, so a response's ETag is a hash of ~100 digests, not of 3 MB
        // (the stored panels name their bytes without hashing them: readyPanels).
        digest = createHash('sha1').update(joined).digest('base64url');
      }
      hit = [bytes, count, digest];
      // What an entry holds: its bytes, or a stored text's deflated bytes (study-panels.ts StoredText).
      if (!ctx.uncached) panelCache.set(key, hit, bytes.reduce((n, b) => n + (Buffer.isBuffer(b) ? b.length : b.held), 0) + key.length * 2 + 64 + 16 * bytes.length);
    }
    return { ord, reference: v.id, panels: hit[0], count: hit[1], digest: hit[2] };
  };
  // A few verses at a time (their reads overlap), giving the event loop back between
  // groups once a slice is used (search/turns.ts slicer: a range is otherwise one block).
  const pause = slicer(SEARCH_SLICE_MS);
  const out: StudyVerse[] = [];
  for (let i = 0; i < ords.length; i += VERSES_AT_ONCE) {
    await pause();
    out.push(...await Promise.all(ords.slice(i, i + VERSES_AT_ONCE).map(one)));
  }
  return out;
}
/**
 * Five cold verses are ~5–10 ms of work. Measured with bench:traffic (first 15 s, three
 * runs each): groups of 10 left /healthz p99 at 36–67 ms, groups of 5 at 27–46 ms; a cold
 * 100-verse range took about as long either way (p50 84–106 ms, the runs vary that much).
 */
const VERSES_AT_ONCE = 5;

/** Whether a panel's layer verses were all shown by an earlier record of the same study. */
function shownBefore(before: StudyRecord[]): ((p: { layer: string; refs: string[] }) => boolean) | undefined {
  if (!before.length) return undefined;
  const seen = new Set(before.flatMap((b) => b.panels.flatMap((p) => p.refs.map((r) => `${p.layer}:${r}`))));
  return (p) => p.refs.every((r) => seen.has(`${p.layer}:${r}`));
}

export const verseStudy = async (ctx: Ctx, t: Translation) => {
  const b = findBook(t, ctx.params.book);
  const ord = await verseOrdinal(ctx, t, b.slug, ctx.params.chapter, ctx.params.verse);
  return { b, verses: await studyOf(ctx, t, [ord]) };
};

export const rangeStudy = async (ctx: Ctx, t: Translation) => {
  // ref= or from/to, in any written form (api/v1/references.ts).
  const [from, to] = await requestedRange(ctx, t, MAX_STUDY_VERSES, 'study and morphology ranges serve');
  const verses = await studyOf(ctx, t, Array.from({ length: to - from + 1 }, (_, i) => from + i));
  return { b: findBook(t, (await verseRecord(ctx, t, from)).book), verses };
};

/** The readable text of the verses studied (contiguous, in canon order). */
export const readable = (ctx: Ctx, t: Translation, verses: StudyVerse[]) =>
  verses.length ? verseItems(ctx, t, verses[0].ord, verses[verses.length - 1].ord) : Promise.resolve([]);

/** /source-texts and /source-coverage bodies, from the build's counts plus the review overlay. */
export function sourceTexts(summary: StudySummary) {
  return [
    ...summary.layers.map((l) => ({
      id: l.id, name: l.name, available: true, language: l.language, source_text: { source_role: l.role }, kind: l.kind, version: l.version,
      generated: l.generated, canon_groups: l.canon, verse_count: l.counts.verses, token_count: l.counts.tokens, versification: l.versification,
      ...(l.note ? { note: l.note } : {}),
      licence: l.provenance.map((p) => p.licence), attribution: l.provenance.map((p) => p.attribution).join(' '), sources: l.provenance,
    })),
    ...summary.absent.map((a) => ({
      id: a.id, name: a.name, available: false, language: a.language, source_text: { source_role: a.role }, kind: a.kind,
      canon_groups: a.canon, verse_count: 0, token_count: 0, reason: a.reason,
    })),
  ];
}

export function sourceCoverage(reviews: ReviewView, summary: StudySummary) {
  const byLayer = new Map<string, { verified: number; rejected: number }>();
  for (const r of reviews.all()) {
    const layer = r.token.split(':')[0];
    const c = byLayer.get(layer) ?? byLayer.set(layer, { verified: 0, rejected: 0 }).get(layer)!;
    c[r.decision]++;
  }
  const zero = () => Object.fromEntries(STATUSES.map((s) => [s.replace(/-/g, '_'), 0])) as Record<string, number>;
  const total = { canon_coverage: { old: { verses: 0 }, new: { verses: 0 }, apocrypha: { verses: 0 } }, verses: 0, word_tokens: 0, token_statuses: zero(), verified: 0 };
  const layers = summary.layers.map((l) => {
    const rv = byLayer.get(l.id) ?? { verified: 0, rejected: 0 };
    const statuses = zero();
    for (const s of STATUSES) statuses[s.replace(/-/g, '_')] = l.counts.token_statuses[s];
    for (const g of ['old', 'new', 'apocrypha'] as const) total.canon_coverage[g].verses += l.counts.canon_coverage[g].verses;
    total.verses += l.counts.verses;
    total.word_tokens += l.counts.tokens;
    for (const k of Object.keys(statuses)) total.token_statuses[k] += statuses[k];
    total.verified += rv.verified;
    const queued = l.counts.token_statuses['review-needed'];
    return {
      id: l.id, name: l.name, language: l.language, source_role: l.role, generated: l.generated, ...(l.note ? { note: l.note } : {}),
      canon_coverage: l.counts.canon_coverage, verses: l.counts.verses, word_tokens: l.counts.tokens, token_statuses: statuses,
      confidence: l.counts.confidence,
      // Where the layer's verses are shown (issue 25): under their own number, under another
      // by a numbering table, only in the Vulgate's numbering, or nowhere (with references).
      placement: l.counts.placement ?? null,
      // Every placement checked by content (issue 36): placements checked, flags by kind,
      // each flag with its better place and, when left standing, why; KJV verses uncovered.
      placement_check: l.counts.placement_check ?? null,
      review_maturity: { verified: rv.verified, rejected: rv.rejected, verified_percent: pct(rv.verified, l.counts.tokens) },
      phase_5: { state: phase5(rv.verified + rv.rejected, queued), reviewed: rv.verified + rv.rejected, verified: rv.verified, rejected: rv.rejected, queued },
      licence_notes: l.provenance.map((p) => `${p.licence.name}: ${p.attribution}`),
    };
  });
  return {
    layers,
    absent: summary.absent.map((a) => ({ id: a.id, name: a.name, reason: a.reason })),
    total: { ...total, review_maturity: { verified: total.verified, verified_percent: pct(total.verified, total.word_tokens) } },
  };
}
const pct = (n: number, of: number) => (of ? Math.round((n / of) * 1e6) / 1e4 : 0);
/** Phase 5 is the review phase: not started, under way (queue open), or complete (nothing queued, something reviewed). */
const phase5 = (reviewed: number, queued: number) => (reviewed === 0 ? (queued ? 'not-started' : 'no-review-needed') : queued > reviewed ? 'in-progress' : 'reviewed');

