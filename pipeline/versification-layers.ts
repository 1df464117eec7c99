/**
 * The numbering tables of the study layers no English text of the same numbering can be
 * aligned for them (pipeline/versification-maps.ts runs this after the translations'):
 *
 * - maps/vulgate.json, the Clementine Vulgate (VulgClementine, SWORD `Vulg` index). It
 *   borrowed the Douay-Rheims' table until issue 36, but the Clementine text divides some
 *   verses otherwise than the DRC module (Isa 45:24–25, 1 Thess 4:12–18): it starts from
 *   that table (the DRC is a translation of the Vulgate in the same verse index, Psalms
 *   included since issue 36) and is corrected where its own words disagree.
 * - maps/peshitta.json, the Peshitta New Testament (SWORD `KJV` index), which starts
 *   from its own numbers: its text follows another order in places (Rom 16:24–26 is the
 *   doxology, the KJV's 16:25–27; its 16:27 is the KJV's 16:24).
 *
 * Each start is then corrected by the content check on the layer's own words (the
 * Latin's lemmas from Whitaker's WORDS where installed, the Syriac words), scored with
 * the alignment model against the KJV's (versification-refine.ts): the same check the
 * build runs and /source-coverage reports, so the table and the report agree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DatasetSource } from '../sources/contract.ts';
import type { PlacedVerse } from '../sources/scripture/study/placement-check.ts';
import { KJV_CHECK_INPUTS, kjvCheckText, placementNotes, tokenUnits } from '../sources/scripture/study/placements.ts';
import { peshittaLayer, vulgateLayer } from '../sources/scripture/study/sword-layers.ts';
import type { StudyLayer } from '../sources/scripture/study/layer.ts';
import { key, type Ref } from '../sources/scripture/study/versification.ts';
import { versification } from '../sources/scripture/books.ts';
import type { NumberingTable } from '../sources/scripture/versification/numbering.ts';
import { resolveInputs } from './inputs.ts';
import { refine } from './versification-refine.ts';

const KJV_BOOKS = new Set(versification('KJV').books.map((b) => b.osis.toLowerCase()));

interface Spec { name: string; layer: StudyLayer; about: string; start: (r: Ref, drc: NumberingTable) => string[] }

const SPECS: Spec[] = [
  {
    name: 'vulgate', layer: vulgateLayer,
    about: 'The Clementine Vulgate (CrossWire VulgClementine, SWORD Vulg verse index) placed under the KJV\'s verses: the Douay-Rheims table (same verse index) as a start, corrected verse by verse by the content check on the Latin itself.',
    // The Douay-Rheims table as this run of pipeline/versification-maps.ts wrote it (read
    // from the file: the module's import is the table before the run).
    start: (r, drc) => drc.verses[key(r)] ?? (drc.unplaced.includes(key(r)) ? [] : [key(r)]),
  },
  {
    name: 'peshitta', layer: peshittaLayer,
    about: 'The Peshitta New Testament (CrossWire Peshitta, SWORD KJV verse index) placed under the KJV\'s verses: its own numbers as a start, corrected verse by verse by the content check on the Syriac itself.',
    start: (r) => [key(r)],
  },
];

export async function layerTables(out: string, only: string[]) {
  const specs = SPECS.filter((s) => !only.length || only.includes(s.name));
  if (!specs.length) return;
  const inputs = { ...KJV_CHECK_INPUTS, ...Object.assign({}, ...specs.map((s) => s.layer.inputs)) };
  const { raw } = await resolveInputs({ inputs } as unknown as DatasetSource);
  const kjvText = kjvCheckText(raw)!;
  const drc = JSON.parse(readFileSync(path.join(out, 'douay-rheims.json'), 'utf8')) as NumberingTable;
  for (const s of specs) {
    console.log(`${s.name}:`);
    const meta = s.layer.layers[0];
    const verses = s.layer.read(raw, null as never, null as never);
    if (!verses) throw new Error(`${s.name}: its upstream files are not fetched (npm run fetch)`);
    const placed: PlacedVerse[] = verses.filter((v) => KJV_BOOKS.has(v.ref.book.toLowerCase()))
      .map((v) => ({ ref: key(v.ref), keys: s.start(v.ref, drc), units: tokenUnits(v.tokens, meta.language) }));
    const filled = fillGaps(placed, kjvText.map((k) => k.key));
    console.log(`  ${filled} unplaced verses placed in the gap their neighbours leave`);
    const refined = refine(kjvText, placed, placementNotes(meta.id), 4, console.log);
    const table: Record<string, string[]> = {}, unplaced: string[] = [];
    for (const v of refined.verses) {
      if (!v.keys.length) unplaced.push(v.ref);
      else if (v.keys.length > 1 || v.keys[0] !== v.ref) table[v.ref] = v.keys;
    }
    const file = {
      layer: meta.id, numbering: s.name, about: s.about, against: 'kjv',
      made_by: 'npx tsx pipeline/versification-maps.ts (pipeline/versification-layers.ts: a start, then pipeline/versification-refine.ts: placements the content check finds a clearly better place for, moved)',
      inputs: { [meta.id]: meta.version, kjv: 'kjv@1.0.0', verse_map: 'morphhb wlc/VerseMap.xml' },
      content_check: { moved: refined.moved.size, rounds: refined.rounds, flagged_before: refined.before.flagged, flagged_after: refined.left.flagged },
      moved: Object.keys(table).length, unplaced_count: unplaced.length, verses: table, unplaced,
    };
    writeFileSync(path.join(out, `${s.name}.json`), `${JSON.stringify(file, null, 1)}\n`);
    console.log(`${s.name}: ${file.moved} verses placed elsewhere, ${unplaced.length} unplaced; the check moved ${refined.moved.size}, flags ${refined.before.flagged} → ${refined.left.flagged}`);
    for (const [ref, m] of [...refined.moved].slice(0, 200)) console.log(`  moved ${ref}: ${m.from.join('+') || '-'} → ${m.to.join('+')}`);
  }
}

/**
 * A start leaves a verse unplaced where the text it was made from could not place it (the
 * Douay-Rheims' English psalms: Vulg Ps 7:5 "si reddidi retribuentibus mihi mala" had no
 * DRC verse the aligner matched, and KJV Ps 7:4 no Latin). Where the layer verses before
 * and after a run of unplaced ones sit under KJV verses that leave a gap no layer verse
 * covers, the run is that gap: one to one when the counts agree, all under the one KJV
 * verse, or the one verse under all of them (shared). The content check then judges the
 * result like any other placement. Returns how many verses were placed.
 */
function fillGaps(verses: PlacedVerse[], order: string[]): number {
  const at = new Map(order.map((k, i) => [k, i]));
  const covered = new Set(verses.flatMap((v) => v.keys));
  const book = (k: string) => k.slice(0, k.indexOf('.'));
  let placed = 0;
  for (let i = 0; i < verses.length;) {
    if (verses[i].keys.length) { i++; continue; }
    let j = i;
    while (j < verses.length && !verses[j].keys.length) j++;
    const before = verses[i - 1]?.keys.at(-1), after = verses[j]?.keys[0];
    if (before && after && at.has(before) && at.has(after) && book(before) === book(after)) {
      const gap = order.slice(at.get(before)! + 1, at.get(after)!);
      const run = verses.slice(i, j);
      if (gap.length && gap.length <= 3 && gap.every((k) => !covered.has(k))) {
        if (run.length === gap.length) run.forEach((v, n) => (v.keys = [gap[n]]));
        else if (gap.length === 1 || run.length === 1) for (const v of run) v.keys = [...gap];
        if (run[0].keys.length) placed += run.length;
      }
    }
    i = j;
  }
  return placed;
}
