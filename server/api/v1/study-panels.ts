/**
 * The study panels as ready JSON, stored with the release (issue 41, item 2). A cold
 * 100-verse range was read 100 study records, parse them, expand ~9,000 token tuples into
 * JSON (~3.3 MB), hash and compress it: 85–180 ms. The token JSON of a panel depends on
 * its record only (not on the translation asking, which shows it under its own reference
 * in the panel's head), so the build writes each record's panels' tokens as text once,
 * beside the study packs: `bible-study/panels/<n>.bin` for pack n (pipeline/paths.ts).
 * A range is then heads written here plus those texts, spliced.
 *
 * What is stored is the default view: no filter on tokens, no review in force. A request
 * with a token filter (verified_only, include_generated=0, confidence, review_status), or
 * a verse with a review in force on one of its panels, takes the expanding path
 * (study-tokens.ts panelsJson), whose output this equals byte for byte (tested over the
 * whole release by test/study-serializer-check.ts).
 *
 * Deflated per record and part: the text is 1.2 GB for the whole canon (~46 KB a verse;
 * the keys of ~20 fields repeat for every token) and 2.2 GB with every translation's
 * alignment panels; 250 MiB deflated (193 MiB when a record's parts were deflated together,
 * but a study then inflated the alignments it never shows).
 * Inflating a range's 100 records takes 3–8 ms.
 *
 * A pack file: a JSON header line ({format, version, first, count}), then count+1 uint32
 * LE offsets of the entries (from the end of the table), then the entries: uint32 LE
 * length of the record's meta JSON ({id, panels, aligned, z}: each panel's layer, refs,
 * shared, token count `n` and text bytes `b`; the deflated size of each part), the meta,
 * and its parts, each deflated alone: its own panels' texts in order, then each
 * translation's alignment panel (a study of kjv inflates half of what the record holds).
 */
import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { PACK_SIZE, panelsPath, packOf } from '../../../pipeline/paths.ts';
import type { OutFile } from '../../../pipeline/shards.ts';
import type { Manifest } from '../../../pipeline/writer.ts';
import { STUDY_DATASET, type StudyRecord, type StudySummary } from '../../../sources/scripture/study/dataset.ts';
import type { StoredPanel } from '../../../sources/scripture/study/tokens.ts';
import type { Release } from '../../release/release.ts';
import type { ReviewView } from '../../state/reviews.ts';
import type { Deferred, Part } from '../../http/encoding.ts';
import { ALIGNMENT_OF } from '../../../sources/scripture/study/english.ts';
import { allPanelTokens, layerTable, panelHead, shown, type LayerInfo, type StudyFilters } from './study-tokens.ts';

export const PANELS_FORMAT = 'almanac-study-panels';
/** Bump when the stored form changes (the token JSON itself is checked on first use: `trusted`). */
export const PANELS_VERSION = 2;

/** A stored panel: its token count `n` and its tokens' text bytes `b` (in order in its part). */
export interface PanelMeta extends Pick<StoredPanel, 'layer' | 'refs' | 'shared'> { n: number; b: number }
interface Stored { id: string; panels: PanelMeta[]; aligned: Record<string, PanelMeta> }
/**
 * A record's stored panels: its own panels' texts, one after another (`part('')`), and
 * each translation's alignment panel (`part(layer)`), inflated when first asked for: a
 * study shows at most one alignment, so the others are never inflated.
 */
export interface PanelsEntry extends Stored {
  part(key: string): Buffer;
  /** A part's deflated bytes, as stored (a view of the panels file). */
  zipped(key: string): Buffer;
}

const NO_REVIEWS: ReviewView = { version: '', get: () => undefined, all: () => [] };

/** One record's stored form before deflating: its meta and the texts of its parts ('' its own panels, then each alignment). */
function entryOf(record: StudyRecord, layers: Map<string, LayerInfo>): { meta: Stored; parts: Map<string, Buffer> } {
  const panels: PanelMeta[] = [];
  const aligned: Record<string, PanelMeta> = {};
  const own: Buffer[] = [];
  const parts = new Map<string, Buffer>([['', Buffer.alloc(0)]]);
  for (const { key, panel, tokens } of allPanelTokens(record, layers, NO_REVIEWS)) {
    const text = Buffer.from(tokens);
    const m: PanelMeta = { layer: panel.layer, refs: panel.refs, ...(panel.shared ? { shared: panel.shared } : {}), n: panel.tokens.length, b: text.length };
    if (key) {
      aligned[key] = m;
      parts.set(key, text);
    } else {
      panels.push(m);
      own.push(text);
    }
  }
  parts.set('', Buffer.concat(own));
  return { meta: { id: record.id, panels, aligned }, parts };
}

/** One record's entry in a pack file: meta length, meta (with each part's deflated size, `z`), the deflated parts. */
function encodeEntry(record: StudyRecord, layers: Map<string, LayerInfo>): Buffer {
  const { meta, parts } = entryOf(record, layers);
  // Level 6: measured over the whole canon with a record's parts deflated together, 164 MiB
  // in 38 s; level 1 saved 5 s for 208 MiB (the serialization is most of the time).
  const z = [...parts.values()].map((t) => deflateRawSync(t, { level: 6 }));
  const m = Buffer.from(JSON.stringify({ ...meta, z: z.map((b) => b.length) }));
  const head = Buffer.alloc(4);
  head.writeUInt32LE(m.length);
  return Buffer.concat([head, m, ...z]);
}

/** A pack file of entries for ordinals first, first+1, …. */
export function encodePack(first: number, entries: Buffer[]): Buffer {
  const header = Buffer.from(JSON.stringify({ format: PANELS_FORMAT, version: PANELS_VERSION, first, count: entries.length }) + '\n');
  const table = Buffer.alloc(4 * (entries.length + 1));
  let at = 0;
  entries.forEach((e, i) => {
    table.writeUInt32LE(at, 4 * i);
    at += e.length;
  });
  table.writeUInt32LE(at, 4 * entries.length);
  return Buffer.concat([header, table, ...entries]);
}

/** A pack's header, read once per pack (a range asks it for each of its verses); null when it is not this format and version. */
const headers = new WeakMap<Buffer, { first: number; count: number; table: number } | null>();
function headerOf(pack: Buffer) {
  let h = headers.get(pack);
  if (h === undefined) {
    h = null;
    const nl = pack.indexOf(10);
    try {
      const j = nl > 0 && nl < 200 ? JSON.parse(pack.toString('utf8', 0, nl)) : {};
      if (j.format === PANELS_FORMAT && j.version === PANELS_VERSION && Number.isInteger(j.first) && Number.isInteger(j.count)) h = { first: j.first, count: j.count, table: nl + 1 };
    } catch { /* not a panels pack */ }
    headers.set(pack, h);
  }
  return h;
}

/** Entry `ordinal` of a pack file, or undefined when the file is not this format and version, or lacks it. */
export function decodeEntry(pack: Buffer, ordinal: number): PanelsEntry | undefined {
  const h = headerOf(pack);
  if (!h) return undefined;
  const i = ordinal - h.first;
  if (i < 0 || i >= h.count) return undefined;
  const data = h.table + 4 * (h.count + 1);
  return entryAt(pack, data + pack.readUInt32LE(h.table + 4 * i), data + pack.readUInt32LE(h.table + 4 * (i + 1)));
}

/**
 * Entry `ordinal` read alone from a pack file kept open (`read`: Release.reads), its header
 * and offsets table read once per open file: what decodeEntry finds in the whole file.
 */
function readEntry(read: (from: number, to: number) => Buffer, size: number, ordinal: number): PanelsEntry | undefined {
  let index = tables.get(read);
  if (index === undefined) {
    const head = read(0, Math.min(size, 256));
    const h = headerOf(head);
    index = h && new PackIndex(h.first, h.count, h.table, read(h.table, h.table + 4 * (h.count + 1)));
    tables.set(read, index);
  }
  if (!index) return undefined;
  const i = ordinal - index.first;
  if (i < 0 || i >= index.count) return undefined;
  const data = index.table + 4 * (index.count + 1);
  const from = data + index.offsets.readUInt32LE(4 * i);
  const to = data + index.offsets.readUInt32LE(4 * (i + 1));
  if (!(from < to && to <= size)) return undefined;
  return entryAt(read(from, to), 0, to - from);
}
/**
 * A pack's header and offsets table. A class, not a spread object literal: every pack's
 * index then has one shape, and the code V8 optimized on the warm-up's packs fits the
 * others (a spread literal's did not: "wrong map" at a fresh server's first real range).
 */
class PackIndex {
  constructor(readonly first: number, readonly count: number, readonly table: number, readonly offsets: Buffer) {}
}
const tables = new WeakMap<object, PackIndex | null>();

/** The entry stored at [from, to) of `bytes`, or undefined when its parts do not add up. */
function entryAt(bytes: Buffer, from: number, to: number): PanelsEntry | undefined {
  const metaLen = bytes.readUInt32LE(from);
  const { z, ...meta } = JSON.parse(bytes.toString('utf8', from + 4, from + 4 + metaLen)) as Stored & { z: number[] };
  if (!Array.isArray(z) || z.length !== 1 + Object.keys(meta.aligned ?? {}).length) return undefined;
  const keys = ['', ...Object.keys(meta.aligned)];
  const starts = new Map<string, [number, number]>();
  let at = from + 4 + metaLen;
  keys.forEach((k, j) => {
    starts.set(k, [at, at + z[j]]);
    at += z[j];
  });
  if (at !== to) return undefined;
  const inflated = new Map<string, Buffer>();
  const part = (key: string) => {
    let b = inflated.get(key);
    if (!b) {
      const [a, e] = starts.get(key)!;
      // Its size is known: one output chunk, no chunks joined afterwards.
      const size = key ? meta.aligned[key].b : meta.panels.reduce((n, p) => n + p.b, 0);
      inflated.set(key, (b = inflateRawSync(bytes.subarray(a, e), { chunkSize: Math.max(64, size + 1) })));
    }
    return b;
  };
  const zipped = (key: string) => bytes.subarray(...starts.get(key)!);
  return { ...meta, part, zipped };
}

/**
 * The panels files of a release's study dataset (the server's build, server/cli/build.ts):
 * none when the dataset is absent, or when its panels files are already there (a dataset
 * carried forward from the live release brings its own).
 */
export function studyPanelFiles(at: { dir: string; manifest: Manifest }, records: (pack: number) => string[], layers: Map<string, LayerInfo>): OutFile[] {
  const info = (at.manifest.datasets as Record<string, { records: number; pack_size?: number }>)[STUDY_DATASET] as { records: number; pack_size?: number } | undefined;
  if (!info || at.manifest.files[panelsPath(STUDY_DATASET, 0)]) return [];
  const size = info.pack_size ?? PACK_SIZE;
  const out: OutFile[] = [];
  for (let n = 0; n <= packOf(Math.max(0, info.records - 1), size); n++) {
    const lines = records(n);
    out.push({ path: panelsPath(STUDY_DATASET, n), content: encodePack(n * size, lines.map((l) => encodeEntry(JSON.parse(l) as StudyRecord, layers))) });
  }
  return out;
}

/**
 * Entry `ordinal` of a release's stored panels and where it comes from (its file's sha256
 * and the ordinal: what readyPanels' digest names it by), or undefined when the release has
 * none (built before them).
 */
export async function storedPanels(release: Release, ordinal: number): Promise<(PanelsEntry & { origin: string }) | undefined> {
  const rel = panelsPath(STUDY_DATASET, packOf(ordinal, release.datasets.get(STUDY_DATASET)?.pack_size));
  const file = release.entry(rel);
  if (!file) return undefined;
  // Read alone once the file is checked (the background check, or a whole read below);
  // whole and cached before that.
  const read = release.reads(rel);
  const e = read ? readEntry(read, file.size, ordinal) : decodeEntry(await release.file(rel), ordinal);
  return e && { ...e, origin: `${file.sha256}:${ordinal}` };
}

/**
 * Whether this server writes the token JSON the release's panels hold: checked once per
 * release on its first record (every layer and alignment of Genesis 1:1), so a release
 * written by another version of the serializer is served by the expanding path rather
 * than with panels this server would not write.
 */
const trust = new WeakMap<Release, Promise<boolean>>();
function trusted(release: Release, layers: Map<string, LayerInfo>): Promise<boolean> {
  let t = trust.get(release);
  if (!t) {
    trust.set(release, (t = storedMatches(release, 0, layers).catch(() => false)));
  }
  return t;
}

/**
 * Makes the check above before the first study needs it (node/server.ts, as the search
 * indexes are warmed): it serializes Genesis 1:1 in every layer, 20–40 ms a fresh process
 * otherwise spent inside its first study. Whether the release's panels will be used.
 */
export function warmStudyPanels(release: Release): Promise<boolean> {
  const info = release.datasets.get(STUDY_DATASET);
  if (!enabled || !info || !release.entry(panelsPath(STUDY_DATASET, 0))) return Promise.resolve(false);
  return trusted(release, layerTable(info.summary as StudySummary));
}
/** Whether a release's panels were checked (or are being checked) already (tests). */
export const panelsChecked = (release: Release) => trust.has(release);

/**
 * Whether a stored record equals what this server writes for it (test/study-panels.test.ts
 * checks every record with it; `trusted` the first).
 */
export async function storedMatches(release: Release, ordinal: number, layers: Map<string, LayerInfo>): Promise<boolean> {
  const stored = await storedPanels(release, ordinal);
  if (!stored) return false;
  const { meta, parts } = entryOf(JSON.parse((await release.record(STUDY_DATASET, ordinal)).toString('utf8')) as StudyRecord, layers);
  const { part, zipped: _z, origin: _o, ...stored_ } = stored;
  return JSON.stringify(meta) === JSON.stringify(stored_) && [...parts].every(([k, b]) => b.equals(part(k)));
}

let enabled = true;
/** Turns the stored panels off (tests compare both paths; ALMANAC_STUDY_READY=off at start does the same). */
export function useReadyPanels(on: boolean) {
  enabled = on;
}
if (typeof process !== 'undefined' && process.env?.ALMANAC_STUDY_READY === 'off') enabled = false;

/** `layer:ref` of every layer verse with a review in force, by review-file version. */
let reviewed: { version: string; refs: Set<string> } = { version: '', refs: new Set() };
function reviewedRefs(reviews: ReviewView): Set<string> {
  // Version '' is no file yet, or a store written in this process and not re-read: not a key.
  if (reviewed.version !== reviews.version || !reviews.version) {
    reviewed = { version: reviews.version, refs: new Set([...reviews.all()].map((r) => r.token.slice(0, r.token.lastIndexOf(':')))) };
  }
  return reviewed.refs;
}

/**
 * A verse's panels from the stored ready JSON: the same bytes and count as
 * study-tokens.ts panelsJson over its records (`ordinals`, with the panels an earlier
 * record showed left out), and their digest; or undefined when they cannot serve this
 * study: a token filter, a review in force on a shown panel, no (trusted) stored panels.
 *
 * The digest (the verse's part of a response's ETag) hashes the heads written here and,
 * for each stored text, where it comes from (the panels file's sha256, the record, the
 * part): those name its bytes as surely as hashing them, without hashing ~40 KB a verse.
 */
export async function readyPanels(release: Release, translation: string, reference: string, ordinals: number[], layers: Map<string, LayerInfo>, f: StudyFilters, reviews: ReviewView): Promise<[Part[], number, string] | undefined> {
  if (!enabled || f.verifiedOnly || !f.includeGenerated || f.confidence || f.reviewStatus) return undefined;
  if (!(await trusted(release, layers))) return undefined;
  const entries: (PanelsEntry & { origin: string })[] = [];
  for (const ord of ordinals) {
    const e = await storedPanels(release, ord);
    if (!e) return undefined;
    entries.push(e);
  }
  const inForce = reviewedRefs(reviews);
  const own = Object.keys(ALIGNMENT_OF).find((l) => ALIGNMENT_OF[l] === translation);
  const parts: Part[] = [];
  const digest = createHash('sha1');
  let count = 0;
  const seen = new Set<string>();
  for (const e of entries) {
    // A layer verse an earlier record of this verse showed is not shown again (study.ts shownBefore).
    const mine = seen.size ? e.panels.filter((p) => !p.refs.every((r) => seen.has(`${p.layer}:${r}`))) : e.panels;
    const candidates: PanelMeta[] = own && e.aligned[own] ? [...mine, e.aligned[own]] : mine;
    const show = [...shown(candidates, translation, layers, f)];
    if (show.some(({ p }) => p.refs.some((r) => inForce.has(`${p.layer}:${r}`)))) return undefined;
    let off = 0;
    const at = new Map<PanelMeta, number>();
    for (const m of e.panels) {
      at.set(m, off);
      off += m.b;
    }
    // The texts stay deflated until the body is written (StoredText); the panels of the
    // record's own part share one.
    let ownText: StoredText | undefined;
    for (const { p, layer } of show) {
      const start = at.get(p);
      let text: TextSlice;
      if (start !== undefined) {
        const first = !ownText;
        ownText ??= new StoredText(e.zipped(''), off);
        text = new TextSlice(ownText, start, p.b, first);
      } else {
        text = new TextSlice(new StoredText(e.zipped(own!), p.b), 0, p.b, true);
      }
      const head = Buffer.from(panelHead(p, layer, reference, e.id, translation, p.n, p.n));
      if (count++) parts.push(COMMA);
      parts.push(head, text, CLOSE);
      digest.update(head).update(`\n${e.origin}:${start === undefined ? own : start}:${p.b}\n`);
    }
    for (const p of e.panels) for (const r of p.refs) seen.add(`${p.layer}:${r}`);
  }
  return [parts, count, digest.digest('base64url')];
}
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/**
 * A stored part not yet inflated: a copy of its deflated bytes (a view would keep the whole
 * panels file alive in the panel cache, study.ts, or the whole entry read alone, with
 * every translation's alignment part). Inflated when a body is written; the
 * last one inflated is kept, as the panels sharing it are written one after another.
 * Kept deflated, a cold 100-verse range cached ~1.3 MB instead of ~5 MB of texts, memory
 * V8 counts towards its next full collection (docs/benchmarks.md, "Cold study ranges,
 * fourth pass").
 */
class StoredText {
  private readonly z: Buffer;
  constructor(zipped: Buffer, readonly size: number) {
    // allocUnsafe and copy, what Buffer.from does for a Buffer, without its generic path:
    // inlined here, that path took V8 18-38 ms to compile inside a fresh server's first range.
    this.z = Buffer.allocUnsafe(zipped.length);
    zipped.copy(this.z);
  }
  get held() {
    return this.z.length;
  }
  inflate(): Buffer {
    if (lastInflated?.[0] === this) return lastInflated[1];
    const b = inflateRawSync(this.z, { chunkSize: Math.max(64, this.size + 1) });
    inflations++;
    if (b.length !== this.size) throw new Error(`a stored panel text inflated to ${b.length} bytes, not ${this.size}`);
    lastInflated = [this, b];
    return b;
  }
}
let lastInflated: [StoredText, Buffer] | undefined;
let inflations = 0;
/** How many stored texts were inflated so far (tests). */
export const storedTextsInflated = () => inflations;

/** A panel's text: a slice of a StoredText. The first slice of each counts its deflated bytes as held. */
class TextSlice implements Deferred {
  readonly held: number;
  constructor(private readonly text: StoredText, private readonly start: number, readonly length: number, first: boolean) {
    this.held = first ? text.held : 0;
  }
  bytes(): Buffer {
    const b = this.text.inflate();
    return this.start === 0 && this.length === b.length ? b : b.subarray(this.start, this.start + this.length);
  }
}
