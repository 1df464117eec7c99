/**
 * WordNet 3.1 deities and mythical beings: noun synsets under "deity" (09528550: "any
 * supernatural being worshipped as controlling some part of the world…") or "mythical
 * being" (09507794), by hypernym or instance pointers, leaving out anything that is also
 * under "person" (saints, apostles and popes sit under deity through "holy person").
 *
 * Pantheon: only what WordNet states. A domain pointer (;c) to "<X> mythology" (Greek,
 * Roman, Norse, classical) gives X; an instance or hypernym "<X> deity" (Greek deity, Hindu
 * deity, Semitic deity …) gives X, as does being such a category ("Greek deity" itself).
 * `pantheon_basis` quotes the pointer or name used. Nothing is
 * inferred from the gloss text.
 */
import { findSynset, isUnder, readDataFile, targets, type Synset } from '../readers/wordnet.ts';

export interface WordnetBeing {
  offset: string; name: string; names: string[]; kind: 'deity' | 'mythical being'; individual: boolean;
  pantheons: string[]; basis: string[]; description: string; categories: string[];
}

export function wordnetBeings(dataNoun: string): WordnetBeing[] {
  const synsets = readDataFile(dataNoun, 'data.noun');
  const deity = findSynset(synsets, 'deity', 'any supernatural being worshipped');
  const mythical = findSynset(synsets, 'mythical being', 'an imaginary being of myth or fable');
  const person = findSynset(synsets, 'person', 'a human being');
  const out: WordnetBeing[] = [];
  for (const s of synsets.values()) {
    if (s === deity || s === mythical) continue;
    const isDeity = isUnder(synsets, s, deity.offset);
    if (!isDeity && !isUnder(synsets, s, mythical.offset)) continue;
    if (isUnder(synsets, s, person.offset)) continue;
    const ups = [...targets(synsets, s, '@i'), ...targets(synsets, s, '@')];
    const pantheons: string[] = [];
    const basis: string[] = [];
    const add = (p: string, why: string) => {
      if (!pantheons.includes(p)) pantheons.push(p);
      basis.push(why);
    };
    for (const d of targets(synsets, s, ';c')) {
      const m = /^(.+) mythology$/.exec(d.words[0]);
      if (m) add(m[1], `WordNet domain "${d.words[0]}"`);
    }
    const own = /^(.+) deity$/.exec(s.words[0]);
    if (own) add(own[1], `WordNet synset "${s.words[0]}"`);
    for (const u of ups) {
      const m = /^(.+) deity$/.exec(u.words[0]);
      if (m) add(m[1], `WordNet: ${s.pointers.some((p) => p.symbol === '@i' && p.offset === u.offset) ? 'instance of' : 'a kind of'} "${u.words[0]}"`);
    }
    out.push({
      offset: s.offset, name: s.words[0], names: s.words, kind: isDeity ? 'deity' : 'mythical being',
      individual: s.pointers.some((p) => p.symbol === '@i'), pantheons, basis,
      description: s.gloss, categories: ups.map((u: Synset) => u.words[0]),
    });
  }
  return out;
}
