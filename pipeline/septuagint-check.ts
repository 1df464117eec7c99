/**
 * Checks every placement of the Septuagint layer against the Hebrew by content
 * (sources/scripture/study/septuagint-check.ts) and writes what it flags to
 * sources/scripture/versification/maps/septuagint-flags.json, where test/septuagint-mirror
 * .test.ts holds it to the check. Run from fetched inputs after the table changes:
 *
 *   npx tsx pipeline/septuagint-check.ts [--refine]
 *
 * With --refine, each flagged verse of the main text is first placed where the check finds it fits (the
 * table's `refined`: KJV keys directly, not through Brenton's table) and the check runs
 * again, at most ROUNDS times; what is still flagged then is written down. Regenerate
 * the table (pipeline/versification-septuagint.ts) first: it starts with no refinements.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveInputs } from './inputs.ts';
import { studyDataset } from '../sources/scripture/study/dataset.ts';
import { Lexicon } from '../sources/scripture/study/lexicon.ts';
import { oshbLayer } from '../sources/scripture/study/oshb.ts';
import { septuagintLayer } from '../sources/scripture/study/septuagint.ts';
import { checkSeptuagint, FITS, type CheckResult, type PlacementFlag } from '../sources/scripture/study/septuagint-check.ts';
import type { TokenTuple } from '../sources/scripture/study/tokens.ts';
import { kjvKeys } from '../sources/scripture/versification/numbering.ts';
import TABLE from '../sources/scripture/versification/maps/septuagint.json' with { type: 'json' };

const ROUNDS = 3;
const TABLE_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'sources', 'scripture', 'versification', 'maps', 'septuagint.json');

const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'sources', 'scripture', 'versification', 'maps', 'septuagint-flags.json');

/** The check over a build of the Hebrew and Septuagint layers from `raw` (the resolved inputs of studyDataset([oshbLayer, septuagintLayer])). */
export function runCheck(raw: Record<string, unknown>): CheckResult {
  const ds = studyDataset([oshbLayer, septuagintLayer]);
  const records = ds.normalise(raw);
  const verses = septuagintLayer.read(raw, Lexicon.from(raw), { sourceTokens: new Map(), studyKeys: () => [] }) ?? [];
  const unplaced = verses.filter((v) => !kjvKeys('septuagint', v.label!).length).map((v) => ({
    layer: v.layer, ref: v.label!, book: v.label!.split('.')[0], lemmas: v.tokens.map((t) => (t as TokenTuple)[2]!),
  }));
  return checkSeptuagint(records, unplaced);
}

/**
 * A flag the refinement acts on: the main text's (the table is keyed by reference, which the
 * texts Rahlfs prints twice share), a neighbour, or a verse elsewhere that fits as a placed
 * verse does and clearly better than any other place (a verse the Hebrew has twice ties, and stays flagged).
 */
const movable = (f: PlacementFlag) => f.layer === 'septuagint'
  && (f.kind === 'neighbour' || (f.score >= FITS && f.score - (f.runner_up ?? -Infinity) >= UNIQUE));
const UNIQUE = 0.5;

async function main() {
  const { raw } = await resolveInputs(studyDataset([oshbLayer, septuagintLayer]));
  let r = runCheck(raw);
  if (process.argv.includes('--refine')) {
    // numbering.ts reads this same object: placing a verse here moves it in the next run's records.
    const table = TABLE as { refined?: Record<string, string[]> };
    table.refined = {};
    for (let round = 1; round <= ROUNDS && r.flags.some(movable); round++) {
      // The table is keyed by reference, which the texts Rahlfs prints twice share: only the main text's flags move a verse.
      for (const f of r.flags) if (movable(f)) table.refined[f.ref] = [f.better];
      console.log(`round ${round}: ${r.flags.length} verses placed where they fit`);
      r = runCheck(raw);
    }
    table.refined = Object.fromEntries(Object.entries(table.refined).sort(([a], [b]) => (a < b ? -1 : 1)));
    writeFileSync(TABLE_FILE, `${JSON.stringify({ ...TABLE, refined_count: Object.keys(table.refined).length, refined: table.refined }, null, 1)}\n`);
  }
  const { flags, ...counts } = r;
  writeFileSync(OUT, `${JSON.stringify({
    about: 'Placements of the Septuagint layer that its content questions (pipeline/septuagint-check.ts): a neighbouring KJV verse fits '
      + 'clearly better (neighbour), the placement fits poorly and a verse elsewhere in the book fits clearly better (elsewhere), or '
      + 'the table leaves the verse unplaced though a KJV verse fits it (unplaced). Scores: mean log-probability per Greek word of the '
      + 'verse given the Hebrew (a placed verse scores about -3.4; an unrelated one about -7.9).',
    made_by: 'npx tsx pipeline/septuagint-check.ts',
    ...counts,
    flagged: flags.length,
    flags,
  }, null, 1)}\n`);
  const kinds = new Map<string, number>();
  for (const f of flags) kinds.set(`${f.kind} ${f.ref.split('.')[0]}`, (kinds.get(`${f.kind} ${f.ref.split('.')[0]}`) ?? 0) + 1);
  console.log(`septuagint check: ${counts.scored} of ${counts.placements} placements scored (${counts.tooShort} too short, ${counts.noHebrew} without Hebrew), `
    + `${counts.unplaced} unplaced verses searched; ${flags.length} flags: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
