/**
 * The placement check (issue 36; sources/scripture/study/placement-check.ts) on a
 * synthetic parallel corpus: a "KJV" book and a layer in another vocabulary (each English
 * word has its own unit, verses lose and gain a few), placed correctly but for the faults
 * planted. The check must find each fault by itself and flag nothing else. The real
 * layers are checked on the full mirror build (test/study-mirror-checks.ts).
 */
import { describe, expect, it } from 'vitest';
import { checkPlacements, type KeyText, type PlacedVerse } from '../sources/scripture/study/placement-check.ts';

/** A seeded LCG: the corpus is the same every run. */
function corpus() {
  let seed = 36;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  // Zipf-like: low word numbers are common, high ones rare (names).
  const word = () => Math.floor(400 * rnd() ** 2.2);
  const kjv: KeyText[] = [];
  for (let c = 1; c <= 30; c++) for (let v = 1; v <= 20; v++) kjv.push({ key: `gen.${c}.${v}`, words: Array.from({ length: 6 + Math.floor(8 * rnd()) }, () => `w${word()}`) });
  // The layer's verse of each KJV verse: its words as units, one dropped, one added, in another order.
  const translate = (words: string[]) => {
    const units = words.filter(() => rnd() > 0.12).map((w) => `u${w.slice(1)}`);
    units.push(`u${word()}`);
    return units.sort(() => rnd() - 0.5);
  };
  const layer: PlacedVerse[] = kjv.map((k) => ({ ref: k.key, keys: [k.key], units: translate(k.words) }));
  return { kjv, layer };
}

describe('the placement check on a synthetic corpus with planted faults', () => {
  const { kjv, layer } = corpus();

  it('flags nothing when every verse is where it belongs', () => {
    const r = checkPlacements(kjv, layer);
    expect(r.checked).toBe(600);
    expect(r.flags).toEqual([]);
    expect(r.uncovered).toBe(0);
  });

  it('finds a verse shown one verse late (its own KJV verse left empty), a verse shown under one of the two KJV verses it holds, and a block in another place', () => {
    const v = layer.map((x) => ({ ...x }));
    const of = (ref: string) => v.find((x) => x.ref === ref)!;
    // 1. gen.3.5 shown under gen.3.6, as the Peshitta's Rom 16:25 was.
    of('gen.3.5').keys = ['gen.3.6'];
    // 2. gen.7.10 holds KJV 7:10 and 7:11 (the next verse's text joined to it), shown under 7:10 only.
    const i = v.indexOf(of('gen.7.10'));
    v[i].units = [...v[i].units, ...v[i + 1].units];
    v.splice(i + 1, 1);
    // 3. gen.20.1–6 and gen.25.1–6 swapped, as Brenton's Jeremiah was placed.
    for (let k = 1; k <= 6; k++) {
      of(`gen.20.${k}`).keys = [`gen.25.${k}`];
      of(`gen.25.${k}`).keys = [`gen.20.${k}`];
    }
    const r = checkPlacements(kjv, v, { flags: { 'gen.25.1': 'a note: left on purpose' }, uncovered: { 'gen.7.11': 'a note on an uncovered verse' } });
    const byRef = new Map(r.flags.map((f) => [f.ref, f]));
    expect(byRef.get('gen.3.5')).toMatchObject({ kind: 'shifted', better: ['gen.3.5'] });
    expect(byRef.get('gen.7.10')).toMatchObject({ kind: 'spans-neighbour', better: ['gen.7.10', 'gen.7.11'] });
    for (let k = 1; k <= 6; k++) {
      expect(byRef.get(`gen.20.${k}`), `gen.20.${k}`).toMatchObject({ kind: 'elsewhere', better: [`gen.20.${k}`] });
      expect(byRef.get(`gen.25.${k}`), `gen.25.${k}`).toMatchObject({ kind: 'elsewhere', better: [`gen.25.${k}`] });
    }
    expect(byRef.get('gen.25.1')!.reason).toBe('a note: left on purpose');
    expect(r.explained).toBe(1);
    expect(r.flagged).toBe(14);
    expect(r.uncovered_references).toEqual(['gen.3.5', 'gen.7.11']);
    expect(r.uncovered_reasons).toEqual({ 'gen.7.11': 'a note on an uncovered verse' });
  });
});
