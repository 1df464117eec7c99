/**
 * `npm run versification:check`: every placement of every study layer and of every
 * translation's numbering table checked by content (issue 36;
 * sources/scripture/study/placement-check.ts), from the fetch cache, offline, and the flags
 * reported per layer. The study layers' checks are the ones the build puts in the study
 * dataset's summary and /api/v1/source-coverage serves; the translations' tables (their
 * whole text against the KJV's) are checked here only, as the build has no translation
 * text in the study dataset (the generated English layers, which the ASV, Darby and WEB
 * Catholic tables place, are checked there too).
 *
 *   npm run versification:check                  the table of layers
 *   npm run versification:check -- --flags       and every flag, with its reason
 *   npm run versification:check -- --json FILE   everything, as JSON
 *
 * Exit 1 when a flag is left without a reason (a placement to fix, or to explain in
 * sources/scripture/versification/maps/placement-notes.json); the KJV verses no verse of
 * a layer is placed under are counted and listed (-- --flags), not failed on.
 */
import { writeFileSync } from 'node:fs';
import type { DatasetSource } from '../sources/contract.ts';
import { translationDataset } from '../sources/scripture/dataset.ts';
import { TRANSLATIONS } from '../sources/scripture/index.ts';
import { studyDataset, STUDY_LAYERS, type StudySummary } from '../sources/scripture/study/dataset.ts';
import { ENGLISH_LAYERS } from '../sources/scripture/study/english.ts';
import { checkPlacements, type PlacementCheck } from '../sources/scripture/study/placement-check.ts';
import { KJV_CHECK_INPUTS, kjvCheckText, placementNotes } from '../sources/scripture/study/placements.ts';
import { kjvKeys } from '../sources/scripture/versification/numbering.ts';
import { contentWords } from '../sources/scripture/versification/verse-align.ts';
import { isMain, parseCli } from './cli.ts';
import { resolveInputs } from './inputs.ts';

/** Every layer's and table's check: study layers by id, tables as `table:<name>`. */
export async function versificationChecks(log: (line: string) => void = () => {}): Promise<Map<string, PlacementCheck>> {
  const out = new Map<string, PlacementCheck>();
  // The source layers as the build reads them (the generated English ones are their
  // translations' tables, checked below on the whole text).
  const study = studyDataset(STUDY_LAYERS.filter((l) => !ENGLISH_LAYERS.includes(l)));
  const { raw } = await resolveInputs(study);
  study.normalise(raw);
  for (const l of (study.summary!([]) as StudySummary).layers) {
    if (l.counts.placement_check) out.set(l.id, l.counts.placement_check);
    log(`${l.id}: checked`);
  }
  const kjv = kjvCheckText((await resolveInputs({ inputs: KJV_CHECK_INPUTS } as unknown as DatasetSource)).raw)!;
  for (const t of TRANSLATIONS) {
    if (t.slug === 'kjv') continue;
    const ds = translationDataset(t);
    const { raw: text, missing } = await resolveInputs(ds);
    if (missing.length) { log(`table:${t.slug}: not fetched, skipped`); continue; }
    const name = t.slug === 'brenton' ? 'lxx' : t.slug;
    const verses = ds.normalise(text).map((r) => ({ ref: r.id, keys: kjvKeys(t.slug, r.id.replace(/^esthgr\./, 'esth.')), units: contentWords(r.text) }));
    out.set(`table:${name}`, checkPlacements(kjv, verses, placementNotes(`table:${name}`)));
    log(`table:${name}: checked`);
  }
  return out;
}

export function report(checks: Map<string, PlacementCheck>, flags: boolean): string {
  const rows = [...checks].map(([id, c]) => {
    const kinds = Object.entries(c.by_kind).map(([k, n]) => `${k} ${n}`).join(', ') || '-';
    return `| ${id} | ${c.checked} | ${c.flagged} | ${kinds} | ${c.flagged - c.explained} | ${c.uncovered} | ${c.uncovered - Object.keys(c.uncovered_reasons).length} |`;
  });
  const lines = ['| layer | placements checked | flagged | by kind | flags without a reason | KJV verses uncovered | uncovered without a reason |', '|---|---|---|---|---|---|---|', ...rows];
  if (flags) {
    for (const [id, c] of checks) {
      if (!c.flags.length && !c.uncovered) continue;
      lines.push('', `${id}:`);
      for (const f of c.flags) lines.push(`  ${f.kind} ${f.ref} under ${f.keys.join('+')} (${f.score}) → ${f.better.join('+')} (${f.better_score})${f.reason ? `: ${f.reason}` : ''}`);
      for (const k of c.uncovered_references) lines.push(`  uncovered ${k}${c.uncovered_reasons[k] ? `: ${c.uncovered_reasons[k]}` : ''}`);
    }
  }
  return lines.join('\n');
}

if (isMain(import.meta.url)) {
  const { values } = parseCli('versification:check', 'usage: npm run versification:check [-- --flags] [-- --json FILE]\n  checks every placement of every study layer and translation table by content, from the fetch cache; exit 1 when a flag has no reason',
    { flags: { type: 'boolean', default: false }, json: { type: 'string' } });
  const checks = await versificationChecks((l) => console.error(l));
  console.log(report(checks, values.flags!));
  if (values.json) writeFileSync(values.json, `${JSON.stringify(Object.fromEntries(checks), null, 1)}\n`);
  // A flag is a placement to fix or explain; a KJV verse a layer lacks is often its text's
  // (the Septuagint's shorter Jeremiah), so those are counted and listed, not failed on.
  const open = [...checks.values()].reduce((n, c) => n + c.flagged - c.explained, 0);
  const uncovered = [...checks.values()].reduce((n, c) => n + c.uncovered - Object.keys(c.uncovered_reasons).length, 0);
  console.error(`versification:check: ${open} flags without a reason; ${uncovered} KJV verses without a verse of some layer and no reason`);
  if (open) process.exitCode = 1;
}
