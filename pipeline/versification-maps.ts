/**
 * Writes sources/scripture/versification/maps/<name>.json: where each verse of a
 * translation (and of the Vulgate and Peshitta layers, versification-layers.ts) sits in
 * the KJV's numbering (the study's keys). Run by hand when an upstream changes, from
 * fetched inputs (npm run fetch, or ALMANAC_MIRROR):
 *
 *   npx tsx pipeline/versification-maps.ts [name…]
 *
 * A translation's text is aligned with the KJV's by shared words (verse-align.ts), book
 * by book; Brenton's with a path that may go back, as the Septuagint has blocks in
 * another order (its table is `lxx.json`, the Septuagint's numbering, for any text in it).
 * Every placement is then checked by content and what the check moves is moved
 * (versification-refine.ts). A table lists only the verses that do not sit under their
 * own number: `verses` (moved, split or merged: ref → KJV refs) and `unplaced` (no KJV
 * verse: the Greek additions). Books the KJV lacks are placed against the Douay-Rheims
 * instead, as the study keys them in the Vulgate's numbering. The KJV's psalm titles
 * join its verse 1, so a translation's title verse (the Douay-Rheims', Geneva's) is
 * aligned with it. The WEB Catholic table also says where its additions sit in the
 * Vulgate's numbering (`vulgate`), for their Latin panels.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveInputs } from './inputs.ts';
import { translationDataset } from '../sources/scripture/dataset.ts';
import { TRANSLATIONS } from '../sources/scripture/index.ts';
import { alignBook, contentWords, type AlignVerse } from '../sources/scripture/versification/verse-align.ts';
import type { PlacedVerse } from '../sources/scripture/study/placement-check.ts';
import { KJV_CHECK_INPUTS, kjvCheckText, placementNotes, psalmTitles } from '../sources/scripture/study/placements.ts';
import type { DatasetSource } from '../sources/contract.ts';
import { refine } from './versification-refine.ts';
import { layerTables } from './versification-layers.ts';

const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'sources', 'scripture', 'versification', 'maps');
/** The KJV's book for a translation's book slug (the WEB Catholic's Greek Esther is the KJV's Esther). */
const kjvBook = (book: string) => (book === 'esthgr' ? 'esth' : book);
const inKjvBook = (ref: string) => ref.replace(/^esthgr\./, 'esth.');
/**
 * The KJV verses a translation's book is aligned with: its own book, but for a book of
 * 23 chapters called Ezra, the Septuagint's 2 Esdras (Brenton), whose chapters 11–23 are
 * Nehemiah: Ezra and Nehemiah together, so those chapters land in Nehemiah rather than on
 * Ezra 2's list of names, which Nehemiah 7 repeats.
 */
function kjvTarget(books: Map<string, AlignVerse[]>, book: string, chapters?: number): AlignVerse[] | undefined {
  if (book === 'ezra' && chapters === 23) return [...books.get('ezra')!, ...books.get('neh')!];
  return books.get(kjvBook(book));
}

async function load(slug: string) {
  const ds = translationDataset(TRANSLATIONS.find((t) => t.slug === slug)!);
  const { raw } = await resolveInputs(ds);
  // The KJV's psalm titles join its verse 1, where the study keys a title (the Hebrew's,
  // the Vulgate's and the Septuagint's verse 1; a translation's verse 1 or 0).
  const titles = slug === 'kjv' ? psalmTitles(raw.layout as unknown[]) : new Map<string, string>();
  const books = new Map<string, AlignVerse[]>();
  for (const r of ds.normalise(raw)) (books.get(r.book) ?? books.set(r.book, []).get(r.book)!).push({ ref: r.id, text: titles.has(r.id) ? `${titles.get(r.id)} ${r.text}` : r.text });
  return { books, edition: TRANSLATIONS.find((t) => t.slug === slug)!.edition };
}

/** The LXX table's own description: it is the Septuagint's numbering, for any text that follows it. */
const LXX_ABOUT = 'The Septuagint numbering (as Brenton\'s edition numbers it: chapters and verses in the Greek order, Jeremiah 25:14-51:35 and Exodus 36-39 included) placed under the KJV\'s verses. Made from Brenton\'s English; any layer in LXX numbering can use it (`numbering: lxx`).';

async function main() {
  const only = process.argv.slice(2);
  const kjvText = kjvCheckText((await resolveInputs({ inputs: KJV_CHECK_INPUTS } as unknown as DatasetSource)).raw)!;
  const kjv = await load('kjv');
  const drc = await load('douay-rheims');
  mkdirSync(OUT, { recursive: true });
  for (const t of TRANSLATIONS) {
    if (t.slug === 'kjv' || (only.length && !only.includes(t.slug))) continue;
    console.log(`${t.slug}:`);
    const tr = t.slug === 'douay-rheims' ? drc : await load(t.slug);
    const verses: Record<string, string[]> = {};
    const unplaced: string[] = [];
    const vulgate: Record<string, string[]> = {};
    for (const [book, list] of tr.books) {
      // A book the KJV lacks (Tobit, Sirach…) is studied in the Vulgate's numbering: placed against the Douay-Rheims.
      const target = kjvTarget(kjv.books, book, Number(list.at(-1)!.ref.split('.')[1])) ?? (t.slug === 'douay-rheims' ? undefined : drc.books.get(book));
      if (!target) continue; // the Douay-Rheims' own Tobit…: the Vulgate's numbering itself
      const map = alignBook(list.filter((v) => !v.ref.endsWith('.0')), target, inKjvBook, { jumps: t.slug === 'brenton', otherChapters: t.slug === 'douay-rheims' && book === 'ps' });
      const lost: AlignVerse[] = [];
      for (const v of list) {
        // A psalm title numbered 0 (the WEB) is the Hebrew's verse 1, which the study shows with the KJV's verse 1.
        const to = v.ref.endsWith('.0') ? [inKjvBook(v.ref).replace(/\.0$/, '.1')] : map.get(v.ref)!;
        if (!to.length) { unplaced.push(v.ref); lost.push(v); } else if (to.length > 1 || to[0] !== inKjvBook(v.ref)) verses[v.ref] = to;
      }
      // Verses the KJV lacks, in a Catholic translation: where the Vulgate has them.
      const latin = drc.books.get(kjvBook(book));
      if (lost.length && t.slug === 'web-catholic' && latin) {
        const toVulg = alignBook(list, latin, inKjvBook);
        for (const v of lost) if (toVulg.get(v.ref)!.length) vulgate[v.ref] = toVulg.get(v.ref)!;
      }
    }
    // Then every placement in a KJV book checked by content, and what the check moves, moved.
    const placed: PlacedVerse[] = [];
    for (const [book, list] of tr.books) {
      if (!kjvTarget(kjv.books, book, Number(list.at(-1)!.ref.split('.')[1]))) continue;
      for (const v of list) placed.push({ ref: v.ref, keys: verses[v.ref] ?? (unplaced.includes(v.ref) ? [] : [inKjvBook(v.ref)]), units: contentWords(v.text) });
    }
    const name = t.slug === 'brenton' ? 'lxx' : t.slug;
    const refined = refine(kjvText, placed, placementNotes(`table:${name}`), 4, console.log);
    for (const [ref, { to }] of refined.moved) {
      if (to.length === 1 && to[0] === inKjvBook(ref)) delete verses[ref]; else verses[ref] = to;
    }
    const table = {
      translation: t.slug,
      ...(name === 'lxx' ? { numbering: 'lxx', about: LXX_ABOUT } : {}),
      against: 'kjv',
      made_by: 'npx tsx pipeline/versification-maps.ts (sources/scripture/versification/verse-align.ts: the two texts aligned by shared words; then pipeline/versification-refine.ts: placements the content check finds a clearly better place for, moved)',
      content_check: { moved: refined.moved.size, rounds: refined.rounds, flagged_before: refined.before.flagged, flagged_after: refined.left.flagged },
      inputs: { [t.slug]: tr.edition, kjv: kjv.edition },
      moved: Object.keys(verses).length,
      unplaced_count: unplaced.length,
      verses,
      unplaced,
      ...(Object.keys(vulgate).length ? { vulgate } : {}),
    };
    writeFileSync(path.join(OUT, `${name}.json`), `${JSON.stringify(table, null, 1)}\n`);
    console.log(`${t.slug}: ${table.moved} verses placed elsewhere, ${unplaced.length} unplaced${Object.keys(vulgate).length ? `, ${Object.keys(vulgate).length} placed in the Vulgate` : ''}; the check moved ${refined.moved.size}, flags ${refined.before.flagged} → ${refined.left.flagged}`);
  }
}
async function all() {
  await main();
  const only = process.argv.slice(2);
  await layerTables(OUT, only);
}
all().catch((err) => { console.error(err); process.exit(1); });
