import fs from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { elementsAndIsotopes } from 'chemical-elements';
import source, { layout, type ElementRecord } from '../sources/elements.ts';

const fixture = (name: string) => fs.readFileSync(new URL(`./fixtures/elements/${name}`, import.meta.url), 'utf8');

/** Fresh raw inputs from the fixtures (tests may mutate them). */
function fixtureRaw() {
  return {
    chemicalElements: JSON.parse(fixture('chemical-elements.json')),
    periodicTable: JSON.parse(fixture('periodic-table.json')) as Record<string, unknown>[],
    periodicTableCsv: fixture('periodic-table.csv'),
    pubchem: JSON.parse(fixture('periodic-table-data.json')) as Record<string, unknown>[],
  };
}

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
      atomic_mass: 1.0079407540557772, atomic_mass_text: '1.00794(4)', monoisotopic_mass: 1.00782503223,
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
    expect(records.get('Og')!.atomic_mass_text).toBe('[294]');
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
    expect(fe).toMatchObject({ atomic_number: 26, period: 4, group: 8, block: 'd', atomic_mass_text: '55.845(2)', cpk_hex_color: 'E06633' });
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

  it('says the atomic weights are the IUPAC 2007 table (no CIAAW 2021 source reachable)', () => {
    expect(map.get('Pb')!.atomic_mass_text).toBe('207.2(1)'); // CIAAW 2021: the interval [206.14, 207.94]
    expect((source.schema.properties as any).atomic_mass_text.description).toMatch(/IUPAC 2007/);
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
