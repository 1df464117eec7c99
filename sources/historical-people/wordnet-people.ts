/**
 * WordNet 3.1 people with life dates: noun.person synsets that are instances (`@i`) of a
 * kind of person and whose gloss ends with dates in parentheses, e.g. "(1809-1865)",
 * "(525-456 BC)", "(circa 370-330 BC)", "(born 1930)", "(died in 1016)", "(63 BC - AD 14)".
 * Glosses ending otherwise (centuries, "flourished around …") give no years and the person
 * is left out: the dataset is people with life dates.
 *
 * Years follow the historical convention used throughout: negative = BCE, no year 0.
 */
import { LEX, readDataFile, targets, type Synset } from '../readers/wordnet.ts';

export interface WordnetPerson {
  offset: string; name: string; names: string[]; birth_year: number | null; death_year: number | null;
  approximate: boolean; description: string; kinds: string[];
}

const Y = '(\\d{1,4})\\??';
const PATTERNS: [RegExp, (m: RegExpExecArray) => [number | null, number | null]][] = [
  // (1809-1865), (525-456 BC), (circa 370-330 BC), (1809?-1865), (1940-)
  [new RegExp(`^(?:circa |c |ca\\. )?${Y}-(?:${Y})?( BC)?$`), (m) => (m[3] ? [-m[1], -m[2]] : [+m[1], m[2] ? +m[2] : null])],
  // (?-322 BC)
  [new RegExp(`^\\?-${Y}( BC)?$`), (m) => [null, m[2] ? -m[1] : +m[1]]],
  // (63 BC - AD 14), (4 BC to AD 65), (circa 4 BC - 30 AD)
  [new RegExp(`^(?:circa )?${Y} BC(?: - | to |-)(?:AD )?${Y}(?: AD)?$`), (m) => [-m[1], +m[2]]],
  // (born 1930), (born in 1930), (born in Japan in 1933)
  [new RegExp(`^born (?:in (?:[A-Z][\\w ]+ in )?)?${Y}$`), (m) => [+m[1], null]],
  // (died 1943), (died in 1016), (died in 565 BC)
  [new RegExp(`^died (?:in |around )?${Y}( BC)?$`), (m) => [null, m[2] ? -m[1] : +m[1]]],
];

/** Birth and death years from a gloss's final parenthesis; null when it gives none. */
export function lifeDates(gloss: string): { birth: number | null; death: number | null; approximate: boolean } | null {
  const m = /\(([^()]*)\)\s*$/.exec(gloss);
  if (!m) return null;
  const text = m[1].trim();
  for (const [re, years] of PATTERNS) {
    const hit = re.exec(text);
    if (hit) {
      const [birth, death] = years(hit).map((y) => (y === null || Number.isNaN(y) ? null : y || null));
      if (birth === null && death === null) return null;
      return { birth, death, approximate: /^(circa|c|ca\.) |\?/.test(text) || /around/.test(text) };
    }
  }
  return null;
}

export function wordnetPeople(dataNoun: string): WordnetPerson[] {
  const synsets = readDataFile(dataNoun, 'data.noun');
  const out: WordnetPerson[] = [];
  for (const s of synsets.values()) {
    if (s.lexFile !== LEX.nounPerson) continue;
    if (!s.pointers.some((p) => p.symbol === '@i')) continue; // a kind of person, not a person
    const kinds = targets(synsets, s, '@i');
    const dates = lifeDates(s.gloss);
    if (!dates) continue;
    out.push({
      offset: s.offset,
      name: displayName(s),
      names: s.words,
      birth_year: dates.birth,
      death_year: dates.death,
      approximate: dates.approximate,
      description: s.gloss.replace(/\s*\([^()]*\)\s*$/, ''),
      kinds: kinds.map((k) => k.words[0]),
    });
  }
  return out;
}

/** The fullest of the synset's names (WordNet lists "Lincoln" before "Abraham Lincoln"). */
function displayName(s: Synset): string {
  const full = s.words.filter((w) => !/^(President|Saint|St\.|King|Queen|Pope|Emperor|General|Sir|Lord|Dr\.) /.test(w));
  return (full.length ? full : s.words).reduce((a, b) => (b.split(' ').length > a.split(' ').length ? b : a));
}
