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
 *   as Hebrew. Other books: SWORD's own KJV → Vulg mapping (CrossWire's
 *   `mappings_vulg`, evaluated with libsword 1.9.0 into ../versification/KJV-Vulg.json
 *   by export-mapping.py there), inverted: a Vulgate verse belongs to every KJV verse
 *   mapped to it (Vulg Gen 49:31 = KJV 49:31–32; Vulg Num 13:1 = KJV 12:16). A Vulgate
 *   verse of a KJV book that no KJV verse maps to (the Greek additions, Dan 3:24–90) has
 *   no study key; books the KJV lacks (Tobit, Sirach…) keep their numbers.
 * - NRSV (Geneva), KJV, eBible and own numberings: taken as KJV numbering.
 */
import KJV_VULG from '../versification/KJV-Vulg.json' with { type: 'json' };
import type { VerseMapEntry } from '../../readers/oshb.ts';
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

let vulgInverse: { keys: Map<string, string[]>; kjvBooks: Set<string> } | undefined;
/** KJV study keys of a Vulgate-numbered verse outside Psalms ([] when the KJV has no such verse). */
export function vulgateToKjv(r: Ref): string[] {
  if (!vulgInverse) {
    const table = KJV_VULG as { verses: Record<string, string | null> };
    const keys = new Map<string, string[]>();
    const kjvBooks = new Set<string>();
    for (const b of versification('KJV').books) {
      kjvBooks.add(b.osis.toLowerCase());
      if (b.osis === 'Ps') continue;
      b.verses.forEach((n, c) => {
        for (let v = 1; v <= n; v++) {
          const kjv = `${b.osis}.${c + 1}.${v}`;
          const vulg = Object.hasOwn(table.verses, kjv) ? table.verses[kjv] : kjv;
          if (!vulg) continue;
          const k = vulg.toLowerCase();
          (keys.get(k) ?? keys.set(k, []).get(k)!).push(kjv.toLowerCase());
        }
      });
    }
    vulgInverse = { keys, kjvBooks };
  }
  const k = key(r);
  if (!vulgInverse.kjvBooks.has(r.book.toLowerCase())) return [k];
  return vulgInverse.keys.get(k) ?? [];
}

/** Study keys for a verse in a given numbering system (the translation's or a layer's). */
export function studyKeys(system: string, r: Ref, hebrew: HebrewMap): string[] {
  if (system === 'WLC') return hebrew.toKjv(r);
  if ((system === 'Vulg' || system === 'Vulg-psalms') && r.book === 'Ps') {
    const h = vulgatePsalmToHebrew(r.chapter, r.verse);
    return hebrew.toKjv({ book: 'Ps', ...h });
  }
  if (system === 'Vulg') return vulgateToKjv(r);
  return [key(r)];
}
