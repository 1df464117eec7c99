/**
 * Standard atomic weights for the elements dataset, read from mendeleev's `elements.db`
 * (MIT, Lukasz Mentel), a SQLite file: table `elements` has `atomic_weight` and
 * `atomic_weight_uncertainty` (Da), and `propertymetadata` says where they come from:
 * IUPAC/CIAAW standard atomic weights ("iupac-weights"), the conventional values of
 * Meija et al. 2016 Table 3 for elements whose standard atomic weight is an interval (no
 * uncertainty stored), and for radioactive elements without one the mass number of the
 * most stable isotope (Tc and Pm: the relative atomic mass of Tc-98 and Pm-145).
 *
 * Which edition: Meija et al. 2016 is "Atomic weights of the elements 2013", and the
 * values are that table's (Al 26.9815385(7), Hf 178.49(2)), not CIAAW's later revisions
 * (Hf 178.486(6) since 2019; Pb an interval since 2020). That is what the served source
 * text says; the build checks the metadata still cites it, so a re-pinned file whose
 * citations changed fails loudly instead of being served under a stale label.
 *
 * The npm packages' weights are the IUPAC 2007 table; this file is the newer one, so it is
 * a pinned, optional input: without it (no mirror, nothing fetched) the dataset still
 * builds and these fields are null, never filled from the 2007 table (which stays in its
 * own, labelled field): one field, one source.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { InputSpec, Provenance } from './contract.ts';

export const WEIGHTS_INPUT: InputSpec = {
  kind: 'url',
  url: 'https://raw.githubusercontent.com/lmmentel/mendeleev/master/mendeleev/elements.db',
  // lmmentel/mendeleev @ 580e34010f5c, file last changed 2025-09-16.
  sha256: '8a6312b57603e22c58ab28005bb8cacfbff721bc859eea8ddc2b784c17ffd717',
  format: 'buffer',
  optional: true,
};

export const WEIGHTS_PROVENANCE: Provenance = {
  name: 'mendeleev elements.db (lmmentel/mendeleev @ 580e34010f5c, 2025-09): standard atomic weights after IUPAC/CIAAW; series and name origins',
  url: 'https://github.com/lmmentel/mendeleev',
  licence: { spdx: 'MIT', name: 'MIT License', url: 'https://github.com/lmmentel/mendeleev/blob/master/LICENSE' },
  attribution: 'mendeleev, Copyright (c) 2015 Lukasz Mentel; atomic weights from IUPAC CIAAW (ciaaw.org) and Meija et al., Pure Appl. Chem. 88 (2016) 265',
};

export type WeightKind = 'standard' | 'conventional' | 'isotope';

export interface WeightFields {
  atomic_weight: number | null; atomic_weight_uncertainty: number | null; atomic_weight_text: string | null;
  atomic_weight_kind: WeightKind | null; atomic_weight_source: string | null;
}

const NONE: WeightFields = { atomic_weight: null, atomic_weight_uncertainty: null, atomic_weight_text: null, atomic_weight_kind: null, atomic_weight_source: null };
const nullable = (type: string) => ({ type: [type, 'null'] });
const ABSENT = 'null when the release was built without mendeleev elements.db (the dataset then lists it in missing_inputs)';

export const WEIGHT_PROPERTIES = {
  atomic_weight: { ...nullable('number'), description: `IUPAC/CIAAW standard atomic weight (Da) as of the 2013 table (Meija et al. 2016), the conventional value for elements given as an interval; for elements without one, the mass number of the most stable isotope (Tc, Pm: an isotope's relative atomic mass; see atomic_weight_kind); ${ABSENT}` },
  atomic_weight_uncertainty: { ...nullable('number'), description: 'Uncertainty of atomic_weight (Da); null for conventional values and mass numbers' },
  atomic_weight_text: { ...nullable('string'), description: 'atomic_weight as IUPAC writes it: "72.630(8)" (uncertainty in the last digits), "1.008" (conventional), "[209]" (isotope, not an atomic weight)' },
  atomic_weight_kind: { type: ['string', 'null'], enum: ['standard', 'conventional', 'isotope', null], description: 'standard: with uncertainty; conventional: interval element (Meija et al. 2016 Table 3); isotope: no standard atomic weight (no natural isotopic composition)' },
  atomic_weight_source: { ...nullable('string'), description: 'Where atomic_weight comes from, as mendeleev elements.db cites it' },
};

const VIA = 'via mendeleev elements.db';
const TABLE = 'Meija et al. 2016, Atomic weights of the elements 2013';
const SOURCES = {
  standard: `IUPAC/CIAAW standard atomic weight (${TABLE}), ${VIA}`,
  conventional: `IUPAC/CIAAW conventional atomic weight (${TABLE}, Table 3), ${VIA}`,
  massNumber: `No standard atomic weight: mass number of the most stable isotope (CIAAW radioactive elements), ${VIA}`,
  isotopeMass: (a: number, symbol: string) => `No standard atomic weight: relative atomic mass of ${symbol}-${a} (CIAAW atomic masses), ${VIA}`,
};

function fail(what: string, value: unknown): never {
  throw new Error(`elements: mendeleev elements.db ${what}: unexpected ${JSON.stringify(value)}`);
}

/** Digits after the decimal point of x as the DB means it (doubles carry noise: 6.000000000000001e-9 is 6e-9). */
function places(x: number): number {
  const [mantissa, exponent = '0'] = String(Number(x.toPrecision(12))).split('e');
  return Math.max(0, (mantissa.split('.')[1]?.length ?? 0) - Number(exponent));
}

/** IUPAC's concise notation: 72.63 ± 0.008 → "72.630(8)", 173.045 ± 0.01 → "173.045(10)". */
export function concise(value: number, uncertainty: number): string {
  const d = Math.max(places(value), places(uncertainty));
  const scaled = uncertainty * 10 ** d;
  const digits = Math.round(scaled);
  if (digits < 1 || digits > 99 || Math.abs(scaled - digits) > 1e-6) fail('atomic_weight_uncertainty', [value, uncertainty]);
  return `${value.toFixed(d)}(${digits})`;
}

/** The metadata this module's source texts restate; anything else needs a person to look. */
function checkMetadata(db: BetterSqlite3.Database) {
  const rows = db.prepare(`SELECT column_name, unit, annotations, citation_keys FROM propertymetadata
    WHERE table_name = 'elements' AND column_name IN ('atomic_weight', 'atomic_weight_uncertainty') ORDER BY column_name`).all() as
    { column_name: string; unit: string | null; annotations: string | null; citation_keys: string | null }[];
  const [w, u] = rows;
  const expected = ['conventional atomic weights', 'Table 3', 'mass number of the most stable isotope', 'CIAAW'];
  if (rows.length !== 2 || w.column_name !== 'atomic_weight' || u.column_name !== 'atomic_weight_uncertainty') fail('propertymetadata rows', rows.map((r) => r.column_name));
  for (const r of rows) {
    if (r.unit !== 'Da' || r.citation_keys !== 'Meija2016,iupac-weights') fail(`propertymetadata ${r.column_name}`, [r.unit, r.citation_keys]);
  }
  if (!expected.every((s) => w.annotations?.includes(s))) fail('propertymetadata atomic_weight annotations', w.annotations);
}

interface Row { z: number; symbol: string; w: unknown; u: unknown; natural: number }

function fields(r: Row): WeightFields {
  const where = `element ${r.z} (${r.symbol})`;
  if (typeof r.w !== 'number' || !(r.w > 0)) return fail(`${where} atomic_weight`, r.w);
  if (r.u !== null && (typeof r.u !== 'number' || !(r.u > 0))) return fail(`${where} atomic_weight_uncertainty`, r.u);
  // The DB's doubles carry float noise (F: 6.000000000000001e-9); served as the decimal meant.
  const base = { atomic_weight: r.w, atomic_weight_uncertainty: r.u === null ? null : Number(r.u.toPrecision(12)) };
  // An element with isotopes of natural abundance has a standard atomic weight (Th, Pa and U
  // too, though radioactive); one without has none and the DB holds an isotope's value.
  if (r.natural) {
    return r.u === null
      ? { ...base, atomic_weight_text: String(r.w), atomic_weight_kind: 'conventional', atomic_weight_source: SOURCES.conventional }
      : { ...base, atomic_weight_text: concise(r.w, r.u), atomic_weight_kind: 'standard', atomic_weight_source: SOURCES.standard };
  }
  if (r.u === null) {
    if (!Number.isInteger(r.w)) fail(`${where} atomic_weight (mass number)`, r.w);
    return { ...base, atomic_weight_text: `[${r.w}]`, atomic_weight_kind: 'isotope', atomic_weight_source: SOURCES.massNumber };
  }
  return { ...base, atomic_weight_text: `[${concise(r.w, r.u)}]`, atomic_weight_kind: 'isotope', atomic_weight_source: SOURCES.isotopeMass(Math.round(r.w), r.symbol) };
}

/**
 * The weight fields of each element, by atomic number and checked against its symbol;
 * all null when the optional input is absent (undefined). better-sqlite3 is loaded only
 * here, at build time: the edge bundle imports every source module and must not pull in
 * a native module, so there is no static import of it.
 */
export function atomicWeights(input: unknown): (z: number, symbol: string) => WeightFields {
  if (input === undefined) return () => NONE;
  if (!Buffer.isBuffer(input)) return fail('(file)', typeof input);
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  const db = new Database(input, { readonly: true });
  let rows: Row[];
  try {
    checkMetadata(db);
    rows = db.prepare(`SELECT e.atomic_number AS z, e.symbol, e.atomic_weight AS w, e.atomic_weight_uncertainty AS u,
      EXISTS (SELECT 1 FROM isotopes i WHERE i.atomic_number = e.atomic_number AND i.abundance > 0) AS natural
      FROM elements e ORDER BY e.atomic_number`).all() as Row[];
  } finally {
    db.close();
  }
  const byZ = new Map(rows.map((r) => [r.z, fields(r)]));
  const symbols = new Map(rows.map((r) => [r.z, r.symbol]));
  return (z, symbol) => {
    if (symbols.get(z) !== symbol) fail(`element ${z}`, symbols.get(z) ?? '(no row)');
    return byZ.get(z)!;
  };
}
