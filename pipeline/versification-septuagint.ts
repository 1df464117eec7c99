/**
 * Writes sources/scripture/versification/maps/septuagint.json: where each verse of the
 * Septuagint layer (Rahlfs' numbering, as LxxLemmas writes it) sits in the LXX numbering
 * (maps/lxx.json, made from Brenton's English: Jeremiah in the Greek order, Exodus 36–39),
 * whose table (`via`, numbering.ts) then places it under the KJV's verses. One LXX
 * numbering → KJV table serves Brenton and this layer, so a correction to it reaches both.
 * Run from fetched inputs (npm run fetch, or ALMANAC_MIRROR):
 *
 *   npx tsx pipeline/versification-septuagint.ts
 *
 * Rahlfs and Brenton number the Greek alike but for what this writes down (every entry is
 * a verse Brenton's text numbers otherwise; Brenton's verses are read from its USFM):
 * - a lettered addition (1 Kgs 2:35a–o, Esther's additions) is part of the verse it
 *   follows, as Brenton's reader joins its lettered segments to that verse;
 * - a merged verse or range (Jer 7:27/28, Sus 60–62) is each verse it covers;
 * - 2 Esdras, which the layer numbers as Ezra 1–10 and Nehemiah 1–13, is Brenton's
 *   23-chapter "Ezra"; the Epistle of Jeremiah's title (1:0) is Brenton's verse 1, so
 *   each verse is Brenton's next; the Lamentations preface (0:1) is Brenton's 1:0;
 *   Sirach's prologue is Brenton's 1:0.
 * A verse the LXX table leaves unplaced keeps its own number where the KJV has it and it
 * is no addition (`own_number`). A verse Brenton lacks keeps its own number, but an
 * addition whose verse Brenton lacks is unplaced: Greek Esther's additions.
 *
 * Then the same content check as every layer's (versification-refine.ts over
 * placement-check.ts: the model trained on the Greek against the KJV's words) runs on
 * the main text's placements, and a verse it finds a clearly better place for is placed
 * there directly (`refined`: KJV keys). What it leaves flagged is reported by the build and
 * by `npm run versification:check`, with the reasons in maps/placement-notes.json.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveInputs } from './inputs.ts';
import { translationDataset } from '../sources/scripture/dataset.ts';
import { TRANSLATIONS } from '../sources/scripture/index.ts';
import { studyDataset } from '../sources/scripture/study/dataset.ts';
import { Lexicon } from '../sources/scripture/study/lexicon.ts';
import { septuagintLayer } from '../sources/scripture/study/septuagint.ts';
import { versification } from '../sources/scripture/books.ts';
import { kjvKeys } from '../sources/scripture/versification/numbering.ts';
import type { DatasetSource } from '../sources/contract.ts';
import type { PlacedVerse } from '../sources/scripture/study/placement-check.ts';
import { KJV_CHECK_INPUTS, kjvCheckText, placementNotes, tokenUnits } from '../sources/scripture/study/placements.ts';
import { refine } from './versification-refine.ts';

/** The numbering the layer's references are first put in: the Septuagint's (maps/lxx.json). */
const VIA = 'lxx';

const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'sources', 'scripture', 'versification', 'maps', 'septuagint.json');

/** Brenton-numbered references of one layer reference (`neh.1.1` → `ezra.11.1`), before checking Brenton has them. */
export function brentonRefs(label: string): string[] {
  const m = /^([0-9a-z]+)\.(prolog|\d+)\.(\d+)([a-z]?)(?:-(\d+))?$/.exec(label);
  if (!m) throw new Error(`not a Septuagint layer reference: ${label}`);
  const [, book, c, v, , through] = m;
  if (c === 'prolog') return ['sir.1.0'];
  if (book === 'lam' && c === '0') return ['lam.1.0'];
  const chapter = book === 'neh' ? Number(c) + 10 : Number(c);
  const b = book === 'neh' ? 'ezra' : book;
  const first = Number(v) + (book === 'epjer' ? 1 : 0);
  const last = (through ? Number(through) : Number(v)) + (book === 'epjer' ? 1 : 0);
  return Array.from({ length: last - first + 1 }, (_, i) => `${b}.${chapter}.${first + i}`);
}

/** Rahlfs' additions: lettered verses, and the Prayer of Azariah and Song of the Three (Daniel 3:24–90). */
const isAddition = (label: string) => /\.\d+[a-z]$/.test(label) || (/^dan\.3\.(\d+)$/.test(label) && +label.split('.')[2] >= 24 && +label.split('.')[2] <= 90);

async function main() {
  const brenton = translationDataset(TRANSLATIONS.find((t) => t.slug === 'brenton')!);
  const has = new Set(brenton.normalise((await resolveInputs(brenton)).raw).map((r) => r.id));
  const ds = studyDataset([septuagintLayer]);
  const { raw } = await resolveInputs(ds);
  const verses = septuagintLayer.read(raw, Lexicon.from(raw), { sourceTokens: new Map(), studyKeys: () => [] });
  if (!verses) throw new Error('the LxxLemmas files are not fetched: npm run fetch (ALMANAC_MIRROR=<mirror> for a local copy)');
  const table: Record<string, string[]> = {};
  const unplaced: string[] = [];
  const ownNumber: string[] = [];
  const kjv = new Set(versification('KJV').books.flatMap((b) => b.verses.flatMap((n, c) => Array.from({ length: n }, (_, v) => `${b.osis.toLowerCase()}.${c + 1}.${v + 1}`))));
  /** A layer reference's KJV keys through the table being written (numbering.ts's kjvKeys, before the file exists). */
  const keysOf = (label: string): string[] => {
    if (ownNumber.includes(label)) return [label];
    const own = table[label] ?? (unplaced.includes(label) ? [] : [label]);
    return [...new Set(own.flatMap((r) => kjvKeys(VIA, r)))];
  };
  let lacking = 0;
  for (const v of verses) {
    const label = v.label!;
    const candidates = brentonRefs(label);
    const refs = candidates.filter((r) => has.has(r));
    if (!refs.length) lacking++;
    // An addition whose verse Brenton lacks (Greek Esther's, numbered 1:1a–s…: Brenton's
    // Esther is its own book, which its table does not place) has no KJV verse: unplaced.
    if (!refs.length && /\.\d+[a-z]$/.test(label)) { unplaced.push(label); continue; }
    const to = refs.length ? refs : candidates;
    if (to.length !== 1 || to[0] !== label) table[label] = to;
    // The LXX table leaves it unplaced: a verse that is no addition keeps its own number
    // where the KJV has one, for the content check to judge.
    if (!to.some((r) => kjvKeys(VIA, r).length) && kjv.has(label) && !isAddition(label)) ownNumber.push(label);
  }
  // The content check every layer gets, on the main text (the table is keyed by reference,
  // which the texts Rahlfs prints twice share), and what it moves, placed directly.
  const kjvText = kjvCheckText((await resolveInputs({ inputs: KJV_CHECK_INPUTS } as unknown as DatasetSource)).raw)!;
  const main = verses.filter((v) => v.layer === 'septuagint');
  const placed: PlacedVerse[] = main.map((v) => ({ ref: v.label!, keys: keysOf(v.label!).filter((k) => kjv.has(k)), units: tokenUnits(v.tokens, 'grc') }));
  const refined = refine(kjvText, placed, placementNotes('septuagint'), 4, console.log);
  const moves = Object.fromEntries([...refined.moved].map(([ref, m]) => [ref, m.to]).sort(([a], [b]) => (a < b ? -1 : 1)));
  const out = {
    numbering: 'septuagint',
    about: 'The Septuagint layer\'s references (Rahlfs\' numbering as the Open Scriptures LxxLemmas files write it) in the LXX numbering '
      + '(maps/lxx.json, made from Brenton\'s English), whose table (`via`) places them under the KJV\'s verses. Lists only the references '
      + 'Brenton numbers otherwise; a reference not listed is Brenton\'s own. `refined`: verses the content check placed directly.',
    made_by: 'npx tsx pipeline/versification-septuagint.ts',
    via: VIA,
    listed: Object.keys(table).length,
    verses: table,
    unplaced,
    own_number: ownNumber,
    content_check: { moved: refined.moved.size, rounds: refined.rounds, flagged_before: refined.before.flagged, flagged_after: refined.left.flagged },
    refined_count: Object.keys(moves).length,
    refined: moves,
  };
  writeFileSync(OUT, `${JSON.stringify(out, null, 1)}\n`);
  console.log(`septuagint: ${verses.length} verses, ${out.listed} numbered otherwise in Brenton's numbering, ${lacking} that Brenton lacks `
    + `(${unplaced.length} additions unplaced, the rest at their own number); ${ownNumber.length} that the LXX table leaves unplaced keep their own number; `
    + `the check moved ${refined.moved.size}, flags ${refined.before.flagged} → ${refined.left.flagged}`);
  for (const [ref, m] of refined.moved) console.log(`  moved ${ref}: ${m.from.join('+') || '-'} → ${m.to.join('+')}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
