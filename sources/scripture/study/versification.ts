/**
 * Maps verse references between the numberings the study layers and the translations
 * use, onto one study key per verse: the KJV-style reference (`mal.4.1`), which every
 * English translation but the Douay-Rheims follows.
 *
 * - Hebrew (WLC/OSHB) → KJV: OSHB's own `VerseMap.xml`. A WLC verse it does not list
 *   keeps its number, except where that number is already the KJV target of another
 *   WLC verse: then it is a psalm title (Hebrew verse 1, pre-verse text in the KJV) and
 *   joins the KJV verse its following Hebrew verse maps to (Ps 3:1 title → KJV Ps 3:1);
 *   outside the Psalms it keeps its number. Partial mappings ("Ps.13.6!a" → Ps.13.5) put
 *   the Hebrew verse under each KJV verse it is part of; the part no row names keeps its
 *   number (Isa 63:19!b → KJV 64:1: Hebrew 63:19 is KJV 63:19 and 64:1).
 * - Vulgate (SWORD `Vulg`) → KJV: its own table, ../versification/maps/vulgate.json
 *   (issue 36; it borrowed the Douay-Rheims' before, but the Clementine text divides
 *   some verses otherwise than the DRC module). Made from the Douay-Rheims' table (same
 *   SWORD verse index) corrected by the content check on the Latin
 *   (pipeline/versification-layers.ts). In the Psalms both follow the Septuagint's psalm
 *   numbering with a title as verse 1 (Vulg Ps 22:1 "Psalmus David. Dominus regit me" is
 *   KJV Ps 23:1); a standard LXX→MT psalm table and the Hebrew map did that until issue
 *   36, and put Vulg Ps 10:2–8 one verse late (the Hebrew's 11:1 holds the title and the
 *   first line, which the Vulgate numbers 10:1 and 10:2) and 10:8 under a KJV 11:8. SWORD's own
 *   KJV→Vulg rules were used before and dropped: they lack rules for Jonah 1:17 = Vulg
 *   2:1, 1 Sam 21 and Mic 5:15, and misplace 1 Sam 20:42. A Vulgate verse the KJV has no
 *   counterpart for (Dan 3:24–90, Esther 10:4–16:24, Susanna, Bel) keeps its Vulgate
 *   number under a `vulg:` key, which the Douay-Rheims and the WEB Catholic ask for;
 *   books the KJV lacks (Tobit, Sirach…) keep their numbers.
 * - SBLGNT and the Byzantine text → KJV: ../versification/maps/greek-layers.json.
 * - English alignment layers: their translation's table (numbering.ts).
 * - The Peshitta New Testament (SWORD `KJV` index): its own table,
 *   ../versification/maps/peshitta.json, made from its text like the Vulgate's (its Rom
 *   16:24–26 is the doxology, the KJV's 16:25–27).
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
    // Which parts of each Hebrew verse the rows place (`!a`, `!b`, or the whole verse).
    const parts = new Map<string, Set<string>>();
    for (const e of entries) {
      const wlc = key(parse(e.wlc));
      const kjv = key(parse(e.kjv));
      const list = this.listed.get(wlc) ?? this.listed.set(wlc, []).get(wlc)!;
      if (!list.includes(kjv)) list.push(kjv);
      this.targets.add(kjv);
      const part = /!([ab])$/.exec(e.wlc)?.[1] ?? 'whole';
      (parts.get(wlc) ?? parts.set(wlc, new Set()).get(wlc)!).add(part);
    }
    // A row for one part of a verse says where that part went; the part no row names keeps
    // its number, as every unlisted verse does (Isa 63:19!b is KJV 64:1, so its first part
    // is KJV 63:19; 1 Kgs 18:34!a is KJV 18:33b, so its second part is KJV 18:34). Without
    // this the KJV verse of that number had no Hebrew at all.
    for (const [wlc, p] of parts) {
      const list = this.listed.get(wlc)!;
      if (p.has('b') && !p.has('a') && !list.includes(wlc)) list.unshift(wlc);
      if (p.has('a') && !p.has('b') && !list.includes(wlc)) list.push(wlc);
    }
  }
  toKjv(r: Ref, depth = 0): string[] {
    const k = key(r);
    const listed = this.listed.get(k);
    if (listed) return listed;
    // Claimed by another Hebrew verse: in the Psalms, a title (Hebrew verse 1, pre-verse
    // text in the KJV), which joins the KJV verse of the Hebrew verse after it. Elsewhere
    // the verse keeps its number and shares that KJV verse (Num 25:19 and 26:1 are both
    // in KJV 26:1); a title rule there put Hebrew Num 26:1 under KJV 26:2.
    if (!this.targets.has(k) || r.book !== 'Ps') return [k];
    const next = { ...r, verse: r.verse + 1 };
    if (depth > 3 || !this.hasWlc(`${r.book}.${next.chapter}.${next.verse}`)) return [k];
    return this.toKjv(next, depth + 1).slice(0, 1);
  }
}

const KJV_BOOKS = new Set(versification('KJV').books.map((b) => b.osis.toLowerCase()));

/** Study keys for a verse in a given numbering system (the translation's or a layer's); `own`, the layer's reference when its numbers cannot say it (`1kgs.2.35a`). */
export function studyKeys(system: string, r: Ref, hebrew: HebrewMap, own = key(r)): string[] {
  if (system === 'WLC') return hebrew.toKjv(r);
  // The Vulgate's own table (maps/vulgate.json), Psalms included; books the KJV lacks keep their numbers.
  if (system === 'Vulg') return KJV_BOOKS.has(r.book.toLowerCase()) ? kjvKeys('vulgate', key(r)) : [key(r)];
  // A layer or translation with a numbering table (SBLGNT, the Byzantine text, the Peshitta, an English alignment's translation).
  if (hasTable(system)) return kjvKeys(system, own);
  return [key(r)];
}
