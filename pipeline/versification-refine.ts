/**
 * A numbering table's placements corrected by the content check (sources/scripture/study/
 * placement-check.ts), for pipeline/versification-maps.ts. The first placement comes from
 * aligning the texts by shared words (an English translation against the KJV), or from
 * a table made for another text of the same numbering (the Vulgate starts from the
 * Douay-Rheims' table; the Peshitta from its own numbers). The
 * check then scores every placement with the alignment model trained on the text itself
 * and names those whose neighbour fits clearly better; each is moved there, the model is
 * trained again on the corrected placements, and so on until nothing is left to move or
 * `rounds` are done. What is left is what the build reports.
 *
 * Moved: a verse shifted one verse, shown under one more KJV verse it runs into (one no
 * other verse holds) or one fewer, and a block placed elsewhere in its book. Not moved:
 * `boundary` flags (a neighbour that has its own verse), flags the notes explain, and
 * moves of one round that land on the same KJV verse.
 */
import { checkPlacements, type KeyText, type PlacedVerse, type PlacementCheck, type PlacementNotes } from '../sources/scripture/study/placement-check.ts';

const MOVES = new Set(['shifted', 'spans-neighbour', 'spans-fewer', 'elsewhere']);

export interface Refined { verses: PlacedVerse[]; moved: Map<string, { from: string[]; to: string[] }>; rounds: number; before: PlacementCheck; left: PlacementCheck }

export function refine(kjv: KeyText[], verses: PlacedVerse[], notes: PlacementNotes = {}, rounds = 4, log: (line: string) => void = () => {}): Refined {
  let current = verses.map((v) => ({ ...v }));
  const moved = new Map<string, { from: string[]; to: string[] }>();
  let check = checkPlacements(kjv, current, notes);
  const before = check;
  let round = 0;
  for (; round < rounds; round++) {
    const todo = check.flags.filter((f) => MOVES.has(f.kind) && !f.reason);
    log(`  round ${round + 1}: ${check.checked} placements, ${check.flagged} flagged, ${todo.length} to move`);
    if (!todo.length) break;
    // Two moves onto the same new KJV verse in one round are both left (a formula many verses
    // share, Num 33's "and they pitched in…", not a verse out of place).
    const onto = new Map<string, number>();
    for (const f of todo) for (const k of f.better) if (!f.keys.includes(k)) onto.set(k, (onto.get(k) ?? 0) + 1);
    const to = new Map(todo.filter((f) => f.better.every((k) => f.keys.includes(k) || onto.get(k) === 1)).map((f) => [f.ref, f.better]));
    if (!to.size) break;
    current = current.map((v) => {
      const keys = to.get(v.ref);
      if (!keys) return v;
      const was = moved.get(v.ref)?.from ?? v.keys;
      moved.set(v.ref, { from: was, to: keys });
      return { ...v, keys };
    });
    check = checkPlacements(kjv, current, notes);
  }
  return { verses: current, moved, rounds: round, before, left: check };
}
