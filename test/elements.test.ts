import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import Database from 'better-sqlite3';
import { elementsAndIsotopes } from 'chemical-elements';
import source, { layout, type ElementRecord } from '../sources/elements.ts';
import { WEIGHTS_INPUT, concise } from '../sources/elements-weights.ts';
import { resolveInputs } from '../pipeline/inputs.ts';
import { mirrorLocation } from '../pipeline/paths.ts';
import { MIRROR_ROOT, NEEDS_MIRROR, cleanup, tempDir } from './helpers.ts';

const fixturePath = (name: string) => new URL(`./fixtures/elements/${name}`, import.meta.url);
const fixture = (name: string) => fs.readFileSync(fixturePath(name), 'utf8');

/**
 * Fresh raw inputs from the fixtures (tests may mutate them). elements.db holds H, F and
 * Og as mendeleev's elements.db has them (made by fixtures/elements/make-elements-db.ts).
 */
function fixtureRaw() {
  return {
    chemicalElements: JSON.parse(fixture('chemical-elements.json')),
    periodicTable: JSON.parse(fixture('periodic-table.json')) as Record<string, unknown>[],
    periodicTableCsv: fixture('periodic-table.csv'),
    pubchem: JSON.parse(fixture('periodic-table-data.json')) as Record<string, unknown>[],
    atomicWeights: fs.readFileSync(fixturePath('elements.db')) as Buffer | undefined,
  };
}

/** The fixture elements.db after `sql`, as the bytes a fetch would hand over. */
function editedDb(sql: string): Buffer {
  const db = new Database(fs.readFileSync(fixturePath('elements.db')));
  try {
    db.pragma('foreign_keys = OFF'); // the fixture leaves out the groups and series tables the elements table names
    db.exec(sql);
    return db.serialize();
  } finally {
    db.close();
  }
}

const WEIGHT_FIELDS = ['atomic_weight', 'atomic_weight_uncertainty', 'atomic_weight_text', 'atomic_weight_kind', 'atomic_weight_source'] as const;

const byId = (records: ElementRecord[]) => new Map(records.map((r) => [r.id, r]));
const validator = () => new Ajv2020({ strict: true, allowUnionTypes: true }).compile(source.schema);

describe('elements normalise (fixtures)', () => {
  const records = byId(source.normalise(fixtureRaw()));

  it('joins both upstreams on atomic number, with fixed key order', () => {
    expect([...records.keys()].sort()).toEqual(['F', 'H', 'Og']);
    const h = records.get('H')!;
    expect(Object.keys(h)).toEqual(Object.keys(source.schema.properties));
    expect(h).toMatchObject({
      id: 'H', symbol: 'H', name: 'Hydrogen', atomic_number: 1,
      atomic_weight: 1.008, atomic_weight_uncertainty: null, atomic_weight_text: '1.008', atomic_weight_kind: 'conventional',
      atomic_weight_2007_text: '1.00794(4)', atomic_mass: 1.0079407540557772, monoisotopic_mass: 1.00782503223,
      period: 1, group: 1, block: 's', group_block: 'nonmetal', standard_state: 'gas',
      electron_configuration: '1s1', electronegativity: 2.2, atomic_radius_pm: 37,
      ionization_energy_kj_mol: 1312, electron_affinity_kj_mol: -73, oxidation_states: [-1, 1],
      melting_point_k: 14, boiling_point_k: 20.28, density_g_cm3: 0.0000899, year_discovered: '1766', cpk_hex_color: 'FFFFFF',
    });
  });

  it('sorts isotopes by mass number and turns a missing abundance into null', () => {
    expect(records.get('H')!.isotopes).toEqual([
      { mass_number: 1, mass: 1.00782503223, abundance: 0.999885 },
      { mass_number: 2, mass: 2.01410177812, abundance: 0.000115 },
      { mass_number: 3, mass: 3.0160492779, abundance: null },
    ]);
  });

  it('handles csvtojson type guesses: single oxidation state as number, mangled colour, mass as array', () => {
    const f = records.get('F')!;
    expect(f.oxidation_states).toEqual([-1]);
    expect(f.cpk_hex_color).toBe('90E050'); // data.json has 9e+51; recovered from data.csv
    expect(records.get('Og')!.atomic_weight_2007_text).toBe('[294]');
  });

  it('maps empty strings and missing masses to null', () => {
    const og = records.get('Og')!;
    expect(og).toMatchObject({
      atomic_mass: null, monoisotopic_mass: null, cpk_hex_color: null, electronegativity: null,
      atomic_radius_pm: null, ionization_energy_kj_mol: null, electron_affinity_kj_mol: null,
      oxidation_states: null, standard_state: null, melting_point_k: null, boiling_point_k: null,
      density_g_cm3: null, period: 7, group: 18, block: 'p', year_discovered: '2002',
    });
  });

  it('produces records valid against the schema', () => {
    const check = validator();
    for (const r of records.values()) expect(check(r), JSON.stringify(check.errors)).toBe(true);
  });

  it('reads the standard atomic weight, its uncertainty and its source from mendeleev elements.db', () => {
    expect(records.get('H')!.atomic_weight_source).toMatch(/^IUPAC\/CIAAW conventional atomic weight \(Meija et al\. 2016, Atomic weights of the elements 2013, Table 3\)/);
    expect(records.get('F')).toMatchObject({
      atomic_weight: 18.998403163, atomic_weight_uncertainty: 6e-9, atomic_weight_text: '18.998403163(6)', atomic_weight_kind: 'standard',
      atomic_weight_source: expect.stringMatching(/^IUPAC\/CIAAW standard atomic weight \(Meija et al\. 2016, .*mendeleev elements\.db$/),
      atomic_weight_2007_text: '18.9984032(5)',
    });
    // No natural isotopes, so no standard atomic weight: the DB's mass number, bracketed and said so.
    expect(records.get('Og')).toMatchObject({
      atomic_weight: 294, atomic_weight_uncertainty: null, atomic_weight_text: '[294]', atomic_weight_kind: 'isotope',
      atomic_weight_source: expect.stringMatching(/^No standard atomic weight: mass number of the most stable isotope/),
    });
  });

  it('builds without elements.db (an optional input): the atomic_weight fields are null, the 2007 text stays labelled', () => {
    const raw = fixtureRaw();
    raw.atomicWeights = undefined;
    const r = byId(source.normalise(raw));
    for (const e of r.values()) for (const f of WEIGHT_FIELDS) expect(e[f], `${e.id} ${f}`).toBeNull();
    expect(r.get('H')!.atomic_weight_2007_text).toBe('1.00794(4)');
    const check = validator();
    for (const e of r.values()) expect(check(e), JSON.stringify(check.errors)).toBe(true);
  });

  it('fails loudly when elements.db no longer cites what the source text says, or lacks an element', () => {
    const raw = fixtureRaw();
    raw.atomicWeights = editedDb("UPDATE propertymetadata SET citation_keys = 'Prohaska2022' WHERE column_name = 'atomic_weight'");
    expect(() => source.normalise(raw)).toThrow(/propertymetadata atomic_weight: unexpected \["Da","Prohaska2022"\]/);
    raw.atomicWeights = editedDb('DELETE FROM elements WHERE atomic_number = 118');
    expect(() => source.normalise(raw)).toThrow(/elements\.db element 118/);
    raw.atomicWeights = editedDb("UPDATE elements SET atomic_weight_uncertainty = 'n/a' WHERE atomic_number = 9");
    expect(() => source.normalise(raw)).toThrow(/element 9 \(F\) atomic_weight_uncertainty/);
    raw.atomicWeights = Buffer.from('not a database');
    expect(() => source.normalise(raw)).toThrow();
  });

  it('writes weights in IUPAC notation, padding the value to the uncertainty', () => {
    expect(concise(72.63, 0.008)).toBe('72.630(8)'); // Ge as the DB stores it
    expect(concise(173.045, 0.01)).toBe('173.045(10)'); // Yb
    expect(concise(132.90545196, 6.000000000000001e-8)).toBe('132.90545196(6)'); // Cs, float noise and all
  });

  it('restores leading zeros a spreadsheet dropped and nulls unrecoverable colours', () => {
    const raw = fixtureRaw();
    raw.periodicTable[0].cpkHexColor = 6985; // as Pd in 0.0.8
    raw.periodicTableCsv = raw.periodicTableCsv.replace(',FFFFFF,', ',6985,');
    raw.periodicTable[2].cpkHexColor = 0; // as Er in 0.0.8
    raw.periodicTableCsv = raw.periodicTableCsv.replace('[294] ,,', '[294] ,0.00E+00,');
    const r = byId(source.normalise(raw));
    expect(r.get('H')!.cpk_hex_color).toBe('006985');
    expect(r.get('Og')!.cpk_hex_color).toBeNull();
  });

  it('fails loudly, naming row and field, on an unexpected upstream value', () => {
    const raw = fixtureRaw();
    raw.periodicTable[1].meltingPoint = '54 K';
    expect(() => source.normalise(raw)).toThrow(/row 9 \(F\) field meltingPoint/);
    const raw2 = fixtureRaw();
    raw2.periodicTable[0].standardState = 'plasma';
    expect(() => source.normalise(raw2)).toThrow(/row 1 \(H\) field standardState/);
    const raw3 = fixtureRaw();
    raw3.periodicTable[0].cpkHexColor = 'EEEEEE'; // json and csv disagree
    expect(() => source.normalise(raw3)).toThrow(/cpkHexColor/);
    const raw4 = fixtureRaw();
    raw4.periodicTable.pop();
    expect(() => source.normalise(raw4)).toThrow(/row count/);
  });
});

describe('elements aliases and layout', () => {
  it('aliases are the atomic number and the lower-case name', () => {
    const fe = { atomic_number: 26, name: 'Iron' } as ElementRecord;
    expect(source.aliases!(fe)).toEqual(['26', 'iron']);
  });

  it('derives period, group and block from the atomic number', () => {
    expect(layout(2)).toEqual({ period: 1, group: 18, block: 's' });
    expect(layout(5)).toEqual({ period: 2, group: 13, block: 'p' });
    expect(layout(26)).toEqual({ period: 4, group: 8, block: 'd' });
    expect(layout(57)).toEqual({ period: 6, group: null, block: 'f' });
    expect(layout(71)).toEqual({ period: 6, group: null, block: 'd' });
    expect(layout(72)).toEqual({ period: 6, group: 4, block: 'd' });
    expect(layout(88)).toEqual({ period: 7, group: 2, block: 's' });
    expect(layout(118)).toEqual({ period: 7, group: 18, block: 'p' });
    expect(() => layout(119)).toThrow();
  });
});

describe('elements normalise (real installed packages)', () => {
  const require = createRequire(import.meta.url);
  const records = source.normalise({
    chemicalElements: elementsAndIsotopes,
    periodicTable: JSON.parse(fs.readFileSync(require.resolve('periodic-table/data.json'), 'utf8')),
    periodicTableCsv: fs.readFileSync(require.resolve('periodic-table/data.csv'), 'utf8'),
    pubchem: JSON.parse(fs.readFileSync(require.resolve('periodic-table-data/periodicTableData.json'), 'utf8')),
  });
  const map = byId(records);

  it('has 118 valid records with unique ids and aliases', () => {
    expect(records).toHaveLength(118);
    expect(map.size).toBe(118);
    const aliases = records.flatMap((r) => source.aliases!(r));
    expect(new Set(aliases).size).toBe(aliases.length);
    const check = validator();
    for (const r of records) expect(check(r), `${r.id}: ${JSON.stringify(check.errors)}`).toBe(true);
  });

  it('has iron where it belongs, with isotopes', () => {
    const fe = map.get('Fe')!;
    expect(fe).toMatchObject({ atomic_number: 26, period: 4, group: 8, block: 'd', atomic_weight_2007_text: '55.845(2)', cpk_hex_color: 'E06633' });
    expect(fe.isotopes.length).toBeGreaterThan(4);
    expect(fe.isotopes.find((i) => i.mass_number === 56)!.abundance).toBeCloseTo(0.91754);
    expect(records.every((r) => r.isotopes.length > 0)).toBe(true);
  });

  it('takes boiling points from PubChem: Si 3538 K and Cu 2835 K, not periodic-table 0.0.8\'s 3173 K and 3200 K', () => {
    expect(map.get('Si')!.boiling_point_k).toBe(3538);
    expect(map.get('Cu')!.boiling_point_k).toBe(2835);
    expect(map.get('Fe')!.boiling_point_k).toBe(3134);
    expect(map.get('Og')!.boiling_point_k).toBeNull();
  });

  it('labels the npm packages\' weights as the IUPAC 2007 table, and has no current ones without elements.db', () => {
    expect(map.get('Ge')!.atomic_weight_2007_text).toBe('72.64(1)');
    expect((source.schema.properties as any).atomic_weight_2007_text.description).toMatch(/IUPAC 2007/);
    expect(records.every((r) => r.atomic_weight === null && r.atomic_weight_source === null)).toBe(true);
  });

  it('covers every group 1–18 and the upstream colour quirks', () => {
    const groups = new Set(records.map((r) => r.group));
    for (let g = 1; g <= 18; g++) expect(groups.has(g)).toBe(true);
    expect(records.filter((r) => r.group === null)).toHaveLength(30);
    expect(map.get('Pd')!.cpk_hex_color).toBe('006985');
    expect(map.get('F')!.cpk_hex_color).toBe('90E050');
    expect(map.get('Er')!.cpk_hex_color).toBeNull();
  });
});

describe('elements atomic weights from the mirrored mendeleev elements.db', () => {
  it('leaves the optional input out when it was not fetched, and still builds', async () => {
    const cache = tempDir();
    try {
      const { raw, missing } = await resolveInputs(source, { ALMANAC_CACHE: cache });
      expect(missing).toEqual(['atomicWeights']);
      expect(source.normalise(raw).find((r) => r.id === 'Fe')!.atomic_weight).toBeNull();
    } finally {
      cleanup(cache);
    }
  });

  it.skipIf(!MIRROR_ROOT)(`serves H 1.008, Ge 72.630(8), Fe 55.845(2) with uncertainty and source ${NEEDS_MIRROR}`, async () => {
    const spec = WEIGHTS_INPUT as Extract<typeof WEIGHTS_INPUT, { kind: 'url' }>;
    const file = mirrorLocation(spec.url, MIRROR_ROOT!);
    expect(createHash('sha256').update(fs.readFileSync(file)).digest('hex')).toBe(spec.sha256);
    // The mirror is laid out like the fetch cache, so the pipeline reads it as a fetched copy.
    const { raw, missing } = await resolveInputs(source, { ALMANAC_CACHE: MIRROR_ROOT! });
    expect(missing).toEqual([]);
    const records = source.normalise(raw);
    const map = byId(records);
    const pick = (id: string) => Object.fromEntries(WEIGHT_FIELDS.slice(0, 4).map((f) => [f, map.get(id)![f]]));
    expect(pick('H')).toEqual({ atomic_weight: 1.008, atomic_weight_uncertainty: null, atomic_weight_text: '1.008', atomic_weight_kind: 'conventional' });
    expect(pick('Ge')).toEqual({ atomic_weight: 72.63, atomic_weight_uncertainty: 0.008, atomic_weight_text: '72.630(8)', atomic_weight_kind: 'standard' });
    expect(pick('Fe')).toEqual({ atomic_weight: 55.845, atomic_weight_uncertainty: 0.002, atomic_weight_text: '55.845(2)', atomic_weight_kind: 'standard' });
    expect(pick('O')).toEqual({ atomic_weight: 15.999, atomic_weight_uncertainty: null, atomic_weight_text: '15.999', atomic_weight_kind: 'conventional' });
    expect(pick('U')).toEqual({ atomic_weight: 238.02891, atomic_weight_uncertainty: 0.00003, atomic_weight_text: '238.02891(3)', atomic_weight_kind: 'standard' });
    expect(pick('Tc')).toEqual({ atomic_weight: 97.90721, atomic_weight_uncertainty: 0.00003, atomic_weight_text: '[97.90721(3)]', atomic_weight_kind: 'isotope' });
    expect(map.get('Tc')!.atomic_weight_source).toMatch(/relative atomic mass of Tc-98/);
    expect(map.get('Ge')!.atomic_weight_2007_text).toBe('72.64(1)'); // the superseded table, kept only under its label
    // The 2013 table, as the served source says: Hf before CIAAW's 2019 revision to 178.486(6).
    expect(map.get('Hf')!.atomic_weight_text).toBe('178.49(2)');
    expect(map.get('Fe')!.atomic_weight_source).toBe('IUPAC/CIAAW standard atomic weight (Meija et al. 2016, Atomic weights of the elements 2013), via mendeleev elements.db');
    const kinds = records.reduce<Record<string, number>>((n, r) => ({ ...n, [r.atomic_weight_kind!]: (n[r.atomic_weight_kind!] ?? 0) + 1 }), {});
    expect(kinds).toEqual({ standard: 72, conventional: 12, isotope: 34 }); // Th, Pa, U are standard: they occur naturally
    const check = validator();
    for (const r of records) expect(check(r), `${r.id}: ${JSON.stringify(check.errors)}`).toBe(true);
  });
});
