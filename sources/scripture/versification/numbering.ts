/**
 * Where a verse of a translation, or of a study layer, sits in the KJV's numbering: the
 * study's keys. The tables are data (maps/*.json): the translations' made by aligning
 * their texts with the KJV's, the Vulgate's and the Peshitta's from their own text, each
 * then corrected by the content check (pipeline/versification-maps.ts); the Greek
 * layers' the published NA/RP differences (maps/greek-layers.json). A verse a table does not list keeps its number;
 * an `unplaced` verse has no KJV counterpart (the Greek additions) and is shown only to
 * translations that number it: in the Vulgate's numbering (`vulg:` study keys).
 */
import ASV from './maps/asv.json' with { type: 'json' };
import LXX from './maps/lxx.json' with { type: 'json' };
import DARBY from './maps/darby.json' with { type: 'json' };
import DRC from './maps/douay-rheims.json' with { type: 'json' };
import GENEVA from './maps/geneva.json' with { type: 'json' };
import GREEK from './maps/greek-layers.json' with { type: 'json' };
import OEB from './maps/oeb.json' with { type: 'json' };
import PESHITTA from './maps/peshitta.json' with { type: 'json' };
import RV from './maps/rv.json' with { type: 'json' };
import SEPTUAGINT from './maps/septuagint.json' with { type: 'json' };
import VULGATE from './maps/vulgate.json' with { type: 'json' };
import WEB from './maps/web.json' with { type: 'json' };
import WEBC from './maps/web-catholic.json' with { type: 'json' };
import WEBSTER from './maps/webster.json' with { type: 'json' };
import YLT from './maps/ylt.json' with { type: 'json' };

/**
 * `via`: the table numbers its verses in another table's numbering, which then places them
 * (the Septuagint layer's Rahlfs references → Brenton's numbering → the KJV's); `refined`:
 * verses placed under KJV keys directly, where the content check found the other table's
 * placement wrong (the content check, pipeline/versification-septuagint.ts); `own_number`: verses the other table
 * leaves unplaced that keep their own number (a KJV verse has it).
 */
export interface NumberingTable {
  verses: Record<string, string[]>; unplaced: string[]; vulgate?: Record<string, string[]>;
  via?: string; refined?: Record<string, string[]>; own_number?: string[];
}

const TABLES: Record<string, NumberingTable> = {
  asv: ASV, darby: DARBY, 'douay-rheims': DRC, geneva: GENEVA, oeb: OEB, rv: RV, web: WEB, 'web-catholic': WEBC, webster: WEBSTER, ylt: YLT,
  // The Septuagint's numbering, made from Brenton's English: Brenton's, and any layer in LXX numbering.
  lxx: LXX, brenton: LXX,
  // Study layers: the Greek ones from the published differences, the others made from their own text.
  sblgnt: { verses: GREEK.sblgnt, unplaced: [] },
  'byzantine-rp2018': { verses: GREEK['byzantine-rp2018'], unplaced: [] },
  vulgate: VULGATE, peshitta: PESHITTA,
  // The Septuagint layer's Rahlfs numbering, through the LXX numbering above (maps/septuagint.json, `via: lxx`).
  septuagint: SEPTUAGINT,
};
/** Tables of study layers (and the LXX alias), not of a translation: not in the offline database's translation rows. */
const LAYER_TABLES = new Set(['sblgnt', 'byzantine-rp2018', 'vulgate', 'peshitta', 'lxx', 'septuagint']);
const unplacedSets = new Map<string, Set<string>>();
const ownNumberSets = new Map<string, Set<string>>();

/** True when the translation (or layer) has a numbering table; the KJV and the layers without one number as the KJV. */
export const hasTable = (name: string) => Object.hasOwn(TABLES, name);

/** KJV study keys of a verse (`ref` a study-style key, `dan.3.91`) numbered as `name` numbers it; [] when the KJV has no such verse. */
export function kjvKeys(name: string, ref: string): string[] {
  const t = TABLES[name];
  if (!t) return [ref];
  if (t.refined && Object.hasOwn(t.refined, ref)) return t.refined[ref];
  if (t.own_number) {
    let kept = ownNumberSets.get(name);
    if (!kept) ownNumberSets.set(name, (kept = new Set(t.own_number)));
    if (kept.has(ref)) return [ref];
  }
  let own: string[];
  if (Object.hasOwn(t.verses, ref)) own = t.verses[ref];
  else {
    let unplaced = unplacedSets.get(name);
    if (!unplaced) unplacedSets.set(name, (unplaced = new Set(t.unplaced)));
    own = unplaced.has(ref) ? [] : [ref];
  }
  return t.via ? [...new Set(own.flatMap((r) => kjvKeys(t.via!, r)))] : own;
}

/**
 * The Vulgate-numbered study key of a verse the KJV lacks, for a translation that has it:
 * the Douay-Rheims numbers as the Vulgate; the WEB Catholic's table says where (Greek
 * Esther's additions sit in the Vulgate's chapters 10–16). Null when none.
 */
export function vulgateKey(name: string, ref: string): string | null {
  if (name === 'douay-rheims') return `vulg:${ref}`;
  const to = TABLES[name]?.vulgate?.[ref];
  return to?.length ? `vulg:${to[0]}` : null;
}

/** Every listed placement of the translations' tables, for the offline database: [translation, reference, study key or null]. */
export function* numberingRows(): Generator<[string, string, string | null]> {
  for (const [name, t] of Object.entries(TABLES)) {
    if (LAYER_TABLES.has(name)) continue;
    for (const [ref, keys] of Object.entries(t.verses)) for (const k of keys) yield [name, ref, k];
    for (const ref of t.unplaced) yield [name, ref, vulgateKey(name, ref)];
  }
}
