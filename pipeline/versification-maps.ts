/**
 * Writes sources/scripture/versification/maps/<translation>.json: where each verse of a translation sits in the KJV's
 * numbering (the study's keys), for every translation the build makes, found by aligning
 * its text with the KJV's (verse-align.ts). Run by hand when a translation's upstream
 * changes, from fetched inputs (npm run fetch, or ALMANAC_MIRROR):
 *
 *   npx tsx pipeline/versification-maps.ts
 *
 * A table lists only the verses that do not sit under their own number: `verses` (moved,
 * split or merged: ref → KJV refs) and `unplaced` (no KJV verse: the Greek additions).
 * Books the KJV lacks are placed against the Douay-Rheims instead, as the study keys
 * them in the Vulgate's numbering. The Douay-Rheims table is also the Vulgate layer's (both are SWORD `Vulg` modules, one
 * verse index); its Psalms are left to the psalm rule (versification.ts), which follows
 * the Hebrew verse numbering through OSHB's VerseMap. The WEB Catholic table also says
 * where its additions sit in the Vulgate's numbering (`vulgate`), for their Latin panels.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveInputs } from './inputs.ts';
import { translationDataset } from '../sources/scripture/dataset.ts';
import { TRANSLATIONS } from '../sources/scripture/index.ts';
import { alignBook, type AlignVerse } from '../sources/scripture/versification/verse-align.ts';

const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'sources', 'scripture', 'versification', 'maps');
/** The KJV's book for a translation's book slug (the WEB Catholic's Greek Esther is the KJV's Esther). */
const kjvBook = (book: string) => (book === 'esthgr' ? 'esth' : book);
const inKjvBook = (ref: string) => ref.replace(/^esthgr\./, 'esth.');

async function load(slug: string) {
  const ds = translationDataset(TRANSLATIONS.find((t) => t.slug === slug)!);
  const { raw } = await resolveInputs(ds);
  const books = new Map<string, AlignVerse[]>();
  for (const r of ds.normalise(raw)) (books.get(r.book) ?? books.set(r.book, []).get(r.book)!).push({ ref: r.id, text: r.text });
  return { books, edition: TRANSLATIONS.find((t) => t.slug === slug)!.edition };
}

async function main() {
  const only = process.argv.slice(2);
  const kjv = await load('kjv');
  const drc = await load('douay-rheims');
  mkdirSync(OUT, { recursive: true });
  for (const t of TRANSLATIONS) {
    if (t.slug === 'kjv' || (only.length && !only.includes(t.slug))) continue;
    const tr = t.slug === 'douay-rheims' ? drc : await load(t.slug);
    const verses: Record<string, string[]> = {};
    const unplaced: string[] = [];
    const vulgate: Record<string, string[]> = {};
    for (const [book, list] of tr.books) {
      if (t.slug === 'douay-rheims' && book === 'ps') continue;
      // A book the KJV lacks (Tobit, Sirach…) is studied in the Vulgate's numbering: placed against the Douay-Rheims.
      const target = kjv.books.get(kjvBook(book)) ?? (t.slug === 'douay-rheims' ? undefined : drc.books.get(book));
      if (!target) continue; // the Douay-Rheims' own Tobit…: the Vulgate's numbering itself
      const map = alignBook(list.filter((v) => !v.ref.endsWith('.0')), target, inKjvBook);
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
    const table = {
      translation: t.slug,
      against: 'kjv',
      made_by: 'npx tsx pipeline/versification-maps.ts (sources/scripture/versification/verse-align.ts: the two texts aligned by shared words)',
      inputs: { [t.slug]: tr.edition, kjv: kjv.edition },
      moved: Object.keys(verses).length,
      unplaced_count: unplaced.length,
      verses,
      unplaced,
      ...(Object.keys(vulgate).length ? { vulgate } : {}),
    };
    writeFileSync(path.join(OUT, `${t.slug}.json`), `${JSON.stringify(table, null, 1)}\n`);
    console.log(`${t.slug}: ${table.moved} verses placed elsewhere, ${unplaced.length} unplaced${Object.keys(vulgate).length ? `, ${Object.keys(vulgate).length} placed in the Vulgate` : ''}`);
  }
}
main().catch((err) => { console.error(err); process.exit(1); });
