/**
 * What else an element is called, from the same mendeleev `elements.db` as its atomic
 * weights (elements-weights.ts; an optional input: without it these fields are null),
 * issue 36, item 6:
 *
 * - `series`: mendeleev's series of the element ("Lanthanides", "Actinides", "Poor
 *   metals", table `series`): the name people use where periodic-table's group_block says
 *   "lanthanoid" (IUPAC's term). mendeleev counts La–Yb as lanthanides and Lu among the
 *   transition metals, as its own table does; served as it says.
 * - `name_origin`: mendeleev's note on the name ("Swedish: tung sten (heavy stone): symbol
 *   from its German name wolfram.").
 * - `symbol_name`: the name the symbol comes from, where that note gives one ("symbol from
 *   Latin: kalium", "symbol from its German name wolfram", "symbol from mineral stibnite"):
 *   11 elements, Na natrium to W wolfram. A note that mentions the symbol's origin in
 *   another wording fails the build, to be looked at.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

export interface NameFields { series: string | null; name_origin: string | null; symbol_name: string | null }

const NONE: NameFields = { series: null, name_origin: null, symbol_name: null };
const SYMBOL_FROM = /symbol from (?:Latin:? |its [A-Z][a-z]+ name |mineral )([a-z]+)/i;

function fail(what: string, value: unknown): never {
  throw new Error(`elements: mendeleev elements.db ${what}: unexpected ${JSON.stringify(value)}`);
}

/** The word a name-origin note says the symbol comes from; null when it says nothing of it. */
export function symbolName(origin: string | null, where: string): string | null {
  if (origin === null || !/symbol from/i.test(origin)) return null;
  return SYMBOL_FROM.exec(origin)?.[1].toLowerCase() ?? fail(`${where} name_origin`, origin);
}

export const NAME_PROPERTIES = {
  series: { type: ['string', 'null'], description: 'mendeleev\'s series: "Lanthanides" (La–Yb), "Actinides", "Alkali metals", "Poor metals"…; null without mendeleev elements.db' },
  name_origin: { type: ['string', 'null'], description: 'mendeleev\'s note on where the name comes from; null without mendeleev elements.db' },
  symbol_name: { type: ['string', 'null'], description: 'The name the symbol comes from where name_origin gives one ("natrium" for Na, "wolfram" for W); else null' },
};

/**
 * The name fields of each element, by atomic number and checked against its symbol; all
 * null when the optional input is absent. better-sqlite3 is loaded only here, at build
 * time (the edge bundle imports every source module and must not pull in a native module).
 */
export function elementNames(input: unknown): (z: number, symbol: string) => NameFields {
  if (input === undefined) return () => NONE;
  if (!Buffer.isBuffer(input)) return fail('(file)', typeof input);
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  const db = new Database(input, { readonly: true });
  let rows: { z: number; symbol: string; series: unknown; origin: unknown }[];
  try {
    rows = db.prepare(`SELECT e.atomic_number AS z, e.symbol, s.name AS series, e.name_origin AS origin
      FROM elements e LEFT JOIN series s ON s.id = e.series_id ORDER BY e.atomic_number`).all() as typeof rows;
  } finally {
    db.close();
  }
  const byZ = new Map(rows.map((r) => {
    const where = `element ${r.z} (${r.symbol})`;
    if (r.series !== null && (typeof r.series !== 'string' || !r.series.trim())) fail(`${where} series`, r.series);
    if (r.origin !== null && (typeof r.origin !== 'string' || !r.origin.trim())) fail(`${where} name_origin`, r.origin);
    const origin = r.origin === null ? null : (r.origin as string).trim();
    return [r.z, { symbol: r.symbol, fields: { series: r.series as string | null, name_origin: origin, symbol_name: symbolName(origin, where) } }];
  }));
  return (z, symbol) => {
    const row = byZ.get(z);
    if (row?.symbol !== symbol) fail(`element ${z}`, row?.symbol ?? '(no row)');
    return row.fields;
  };
}
