/**
 * Maps verse references between the numberings the study layers and the translations
 * use, onto one study key per verse: the KJV-style reference (`mal.4.1`), which every
 * English translation but the Douay-Rheims follows.
 *
 * - Hebrew (WLC/OSHB) → KJV: OSHB's own `VerseMap.xml`. A WLC verse it does not list
 *   keeps its number, except where that number is already the KJV target of another
 *   WLC verse: then it is a psalm title (Hebrew verse 1, pre-verse text in the KJV) and
 *   joins the KJV verse its following Hebrew verse maps to (Ps 3:1 title → KJV Ps 3:1).
 *   Partial mappings ("Ps.13.6!a" → Ps.13.5) put the Hebrew verse under each KJV verse
 *   it is part of.
 * - Vulgate (SWORD `Vulg`) → KJV: in Psalms the Vulgate follows the Septuagint's psalm
 *   numbering but the Hebrew verse numbering (titles are verse 1: Vulg Ps 22:1 "Psalmus
 *   David. Dominus regit me" = Hebrew Ps 23:1), so a Vulgate psalm verse is first moved to
 *   its Hebrew psalm (table below, the standard LXX/MT correspondence) and then mapped
 *   as Hebrew. Other books: the Douay-Rheims' numbering table (the same SWORD `Vulg`
 *   verse index; ../versification/maps/douay-rheims.json, made by aligning its text with
 *   the KJV's). SWORD's own KJV→Vulg rules were used before and dropped: they lack rules
 *   for Jonah 1:17 = Vulg 2:1, 1 Sam 21 and Mic 5:15, and misplace 1 Sam 20:42. A Vulgate
 *   verse the KJV has no counterpart for (Dan 3:24–90, Esther 10:4–16:24, Susanna, Bel)
 *   keeps its Vulgate number under a `vulg:` key, which the Douay-Rheims and the WEB
 *   Catholic ask for; books the KJV lacks (Tobit, Sirach…) keep their numbers.
 * - SBLGNT and the Byzantine text → KJV: ../versification/maps/greek-layers.json.
 * - English alignment layers: their translation's table (numbering.ts).
 * - The Peshitta New Testament (SWORD `KJV` index): as numbered.
 */
import type { VerseMapEntry } from '../../readers/oshb.ts';
import { hasTable, kjvKeys } from '../versification/numbering.ts';
import { versification } from '../books.ts';

export type Ref = { book: string; chapter: number; verse: number };
export const key = (r: Ref) => `${r.book.toLowerCase()}.${r.chapter}.${r.verse}`;
const parse = (osis: string): Ref => {
  const m = /^([1-3]?[A-Za-z]+)\.(\d+)\.(\d+)/.exec(osis);
  if (!m) throw new Error(`not an OSIS verse reference: ${osis}`);
  return { book: m[1], chapter: Number(m[2]), verse: Number(m[3]) };
};

/** WLC verse (OSIS ref) → the KJV study keys it belongs to. */
export class HebrewMap {
  private readonly listed = new Map<string, string[]>();
  private readonly targets = new Set<string>();
  constructor(entries: VerseMapEntry[], private readonly hasWlc: (osisRef: string) => boolean) {
    for (const e of entries) {
      const wlc = key(parse(e.wlc));
      const kjv = key(parse(e.kjv));
      const list = this.listed.get(wlc) ?? this.listed.set(wlc, []).get(wlc)!;
      if (!list.includes(kjv)) list.push(kjv);
      this.targets.add(kjv);
    }
  }
  toKjv(r: Ref, depth = 0): string[] {
    const k = key(r);
    const listed = this.listed.get(k);
    if (listed) return listed;
    if (!this.targets.has(k)) return [k];
    // Claimed by another Hebrew verse: a title (or similar pre-verse material); it joins
    // the KJV verse of the Hebrew verse after it.
    const next = { ...r, verse: r.verse + 1 };
    if (depth > 3 || !this.hasWlc(`${r.book}.${next.chapter}.${next.verse}`)) return [k];
    return this.toKjv(next, depth + 1).slice(0, 1);
  }
}

/**
 * Vulgate/Septuagint psalm → Hebrew psalm: [first LXX psalm, last, Hebrew offset] or the
 * split psalms with their verse offsets.
 */
export function vulgatePsalmToHebrew(chapter: number, verse: number): { chapter: number; verse: number } {
  if (chapter <= 8 || chapter >= 148) return { chapter, verse };
  if (chapter === 9) return verse <= 21 ? { chapter: 9, verse } : { chapter: 10, verse: verse - 21 };
  if (chapter <= 112) return { chapter: chapter + 1, verse };
  if (chapter === 113) return verse <= 8 ? { chapter: 114, verse } : { chapter: 115, verse: verse - 8 };
  if (chapter === 114) return { chapter: 116, verse };
  if (chapter === 115) return { chapter: 116, verse: verse + 9 };
  if (chapter <= 145) return { chapter: chapter + 1, verse };
  if (chapter === 146) return { chapter: 147, verse };
  return { chapter: 147, verse: verse + 11 }; // 147
}

const KJV_BOOKS = new Set(versification('KJV').books.map((b) => b.osis.toLowerCase()));

/** Study keys for a verse in a given numbering system (the translation's or a layer's); `own`, the layer's reference when its numbers cannot say it (`1kgs.2.35a`). */
export function studyKeys(system: string, r: Ref, hebrew: HebrewMap, own = key(r)): string[] {
  if (system === 'WLC') return hebrew.toKjv(r);
  if ((system === 'Vulg' || system === 'Vulg-psalms') && r.book === 'Ps') {
    const h = vulgatePsalmToHebrew(r.chapter, r.verse);
    return hebrew.toKjv({ book: 'Ps', ...h });
  }
  if (system === 'Vulg') return KJV_BOOKS.has(r.book.toLowerCase()) ? kjvKeys('douay-rheims', key(r)) : [key(r)];
  // A layer or translation with a numbering table (SBLGNT, the Byzantine text, an English alignment's translation).
  if (hasTable(system)) return kjvKeys(system, own);
  return [key(r)];
}
