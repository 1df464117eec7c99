import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import Ajv2020Module from 'ajv/dist/2020.js';
import source, { convert, type UnitRecord } from '../sources/units/index.ts';
import { parseDecimal, toDecimal, rat, fromDouble, formatExact } from '../sources/units/rational.ts';
import { evaluateCompound, type Linear } from '../sources/units/english.ts';
import { memoryKeyMap } from '../pipeline/key-spill.ts';
import { aliasKey } from '../pipeline/paths.ts';

// ajv ships CommonJS; under ESM the class may sit on .default.
const Ajv2020 = ((Ajv2020Module as any).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;
const json = (url: URL) => JSON.parse(fs.readFileSync(url, 'utf8'));
const fixtureRaw = () => ({
  ucum: json(new URL('./fixtures/units/ucumDefs.min.json', import.meta.url)),
  cldr: json(new URL('./fixtures/units/units.json', import.meta.url)),
  english: json(new URL('./fixtures/units/en-units.json', import.meta.url)),
});
const realRaw = () => ({
  ucum: json(new URL('../node_modules/@lhncbc/ucum-lhc/data/ucumDefs.min.json', import.meta.url)),
  cldr: json(new URL('../node_modules/cldr-core/supplemental/units.json', import.meta.url)),
  english: json(new URL('../node_modules/cldr-units-full/main/en/units.json', import.meta.url)),
});
/** Lookup as the server does it: the pipeline's key map (ids, then unambiguous aliases in any case). */
function lookup(records: UnitRecord[]) {
  const { keys } = memoryKeyMap(new Map(records.map((r, i) => [r.id, i])), records.map((r) => source.aliases!(r)));
  return (k: string) => { const o = keys.get(k) ?? keys.get(aliasKey(k)); return o === undefined ? undefined : records[o]; };
}
const byId = (records: UnitRecord[]) => new Map(records.map((r) => [r.id, r]));
const validate = new Ajv2020({ strict: true, allowUnionTypes: true }).compile(source.schema);

describe('rational', () => {
  it('parses decimals with exponents and formats exactly or rounded', () => {
    expect(parseDecimal('1.66053878283E-27')).toEqual(rat(166053878283n, 10n ** 38n));
    for (const bad of ['', 'abc', '1e', 'NaN', 'Infinity', '.', '0x10', ' 1', '1e99999']) expect(parseDecimal(bad)).toBeNull();
    expect(toDecimal(rat(1609344n, 1000n))).toEqual({ text: '1609.344', exact: true });
    expect(toDecimal(rat(229835n, 900n))).toEqual({ text: '255.37222222222222222', exact: false });
    expect(toDecimal(rat(-2n, 3n), 5)).toEqual({ text: '-0.66667', exact: false });
    expect(formatExact(rat(5n, 9n))).toBe('5/9');
  });
  it('recovers a float only when it can tell', () => {
    expect(fromDouble(0.5555555555555556)).toEqual({ r: rat(5n, 9n), exact: true });
    expect(fromDouble(1609.344)).toEqual({ r: rat(1609344n, 1000n), exact: true });
    expect(fromDouble(0.0012566370614359172).exact).toBe(false);
  });
});

describe('units normalise (fixtures)', () => {
  const records = source.normalise(fixtureRaw());
  const units = byId(records);
  const u = (id: string) => units.get(id)!;

  it('keeps every row of both upstreams, valid and with fixed key order', () => {
    expect(records.filter((r) => r.source === 'UCUM')).toHaveLength(48);
    expect(records.filter((r) => r.source === 'CLDR')).toHaveLength(32 + 4); // + km/h, mph, kWh, kJ built from CLDR's English names
    for (const r of records) {
      expect(validate(r), `${r.id}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(Object.keys(r)).toEqual(Object.keys(source.schema.properties));
    }
    expect(source.normalise(fixtureRaw())).toEqual(records);
  });

  it('prefixes CLDR ids only where they collide with a UCUM code', () => {
    expect(u('bar')).toMatchObject({ source: 'UCUM', factor: '100000', dimension: 'm-1.kg.s-2' });
    expect(u('cldr-bar')).toMatchObject({ source: 'CLDR', code: 'bar', factor: '100000', equivalent_to: ['bar'] });
    expect(u('cldr-bit')).toMatchObject({ code: 'bit', dimension: 'bit', equivalent_to: ['bit'] });
    expect(u('mile').code).toBe('mile');
    expect(u('g/kg')).toMatchObject({ code: 'g/kg', dimension: '1', factor: '0.001' }); // upstream code has a trailing space
  });

  it('derives exact factors from definitions, not floats', () => {
    expect(u('[mi_i]')).toMatchObject({ name: 'mile', symbol: 'mi', quantity: 'length', dimension: 'm', factor: '1609.344', exact: true, equivalent_to: ['mile'] });
    expect(u('mile')).toMatchObject({ dimension: 'm', factor: '1609.344', exact: true, systems: ['ussystem', 'uksystem'] });
    expect(u('[in_i]')).toMatchObject({ factor: '0.0254', exact: true, equivalent_to: ['inch'] });
    expect(u('[lb_av]')).toMatchObject({ factor: '0.45359237', exact: true, equivalent_to: ['pound'] });
    expect(u('kg/mol')).toMatchObject({ dimension: 'kg.mol-1', factor: '1', exact: true });
    expect(u('[degF]')).toMatchObject({ factor: '5/9', offset: '45967/180', exact: true, equivalent_to: ['fahrenheit'] });
    expect(u('[degRe]')).toMatchObject({ factor: '1.25', offset: '273.15', exact: true });
    expect(u('[diop]')).toMatchObject({ dimension: 'm-1', factor: '1', convertible: true });
  });

  it('maps mole, angles and frequency onto shared bases', () => {
    expect(u('mol')).toMatchObject({ dimension: 'mol', factor: '1', equivalent_to: ['mole'] });
    expect(u('item')).toMatchObject({ dimension: 'mol', factor: '1/602214076000000000000000', exact: true });
    expect(u('katal').equivalent_to).toEqual(['kat']);
    expect(u('radian')).toMatchObject({ dimension: 'rad', factor: '1', exact: true, equivalent_to: ['rad'] });
    expect(u('steradian')).toMatchObject({ dimension: 'rad2', factor: '1', exact: true });
    expect(u('degree')).toMatchObject({ factor: '0.017453292519943295769', exact: false, equivalent_to: ['deg'] });
    expect(u('hertz')).toMatchObject({ dimension: 's-1', factor: '1' });
    expect(u('percent').equivalent_to).toEqual(['%']);
    expect(u('dalton').exact).toBe(false); // a measurement (CODATA 2018)
    expect(u('u').exact).toBe(false);
  });

  it('lets a current definition win over a superseded or rounded upstream value, citing it (definitions.ts)', () => {
    // SI 2019 fixed e, so the electronvolt is exact in both sources; UCUM had 1.60217733e-19 (1986), CLDR 1.602177e-19
    expect(u('eV')).toMatchObject({ factor: '0.0000000000000000001602176634', exact: true, equivalent_to: ['electronvolt'] });
    expect(u('eV').defined_by).toMatch(/SI Brochure.*Table 1/);
    expect(u('electronvolt')).toMatchObject({ factor: '0.0000000000000000001602176634', exact: true, defined_by: expect.stringMatching(/Table 8/) });
    expect(u('[e]')).toMatchObject({ factor: '0.0000000000000000001602176634', exact: true });
    // IAU 2012: exact; UCUM had 149597.870691 Mm
    expect(u('AU')).toMatchObject({ factor: '149597870700', exact: true, equivalent_to: ['astronomical-unit'] });
    // the torr is 1/760 atm exactly; UCUM had 133.322 Pa
    expect(u('Torr')).toMatchObject({ factor: '20265/152', exact: true });
    expect(convert(u('atm'), u('Torr'), '1')).toMatchObject({ ok: true, value_exact: '760', exact: true });
    // conventional mercury column (NIST SP 811), as CLDR's ofhg; UCUM rounded it to 133.322 Pa
    expect(u('mm[Hg]')).toMatchObject({ factor: '133.322387415', exact: true, defined_by: expect.stringContaining('NIST SP 811') });
    expect(u('[in_i\'Hg]')).toMatchObject({ factor: '3386.388640341', exact: true });
    expect(u('ofhg').factor).toBe('133322.387415');
    // the dalton is measured: CODATA 2018 in both, never exact
    for (const id of ['u', 'dalton']) expect(u(id), id).toMatchObject({ factor: '0.0000000000000000000000000016605390666', exact: false, defined_by: expect.stringContaining('CODATA 2018') });
    // everything else keeps its upstream's value and says so
    expect(u('[mi_i]').defined_by).toBeNull();
    expect(u('mile').defined_by).toBeNull();
  });

  it('marks special and arbitrary units not convertible, with a reason', () => {
    expect(u('B')).toMatchObject({ convertible: false, factor: null, not_convertible_reason: "non-linear scale (UCUM special conversion 'lg')" });
    expect(u('[iU]')).toMatchObject({ convertible: false, not_convertible_reason: expect.stringContaining('arbitrary') });
    expect(u('beaufort')).toMatchObject({ convertible: false, not_convertible_reason: expect.stringContaining('beaufort') });
  });

  it('gives aliases: UCUM case-insensitive code, name and code without brackets, CLDR spaced name', () => {
    expect(source.aliases!(u('[mi_i]'))).toEqual(['[MI_I]', 'mile', 'mi_i']);
    expect(source.aliases!(u('mile'))).toEqual(['miles', 'mi']);
    expect(u('mile')).toMatchObject({ symbol: 'mi', common_names: ['miles', 'mi'] });
  });

  it('builds the compound units CLDR names in English from their parts, exactly (UTS #35 unit ids)', () => {
    expect(u('kilometer-per-hour')).toMatchObject({ source: 'CLDR', symbol: 'km/h', quantity: 'speed', dimension: 'm.s-1', factor: '5/18', exact: true });
    expect(u('mile-per-hour')).toMatchObject({ symbol: 'mph', factor: '0.44704', exact: true });
    expect(u('kilowatt-hour')).toMatchObject({ symbol: 'kWh', dimension: 'm2.kg.s-2', factor: '3600000', exact: true, equivalent_to: [] });
    expect(u('kilojoule')).toMatchObject({ symbol: 'kJ', factor: '1000' });
    expect(records.some((r) => r.code === 'generic')).toBe(false); // temperature-generic is a bare degree sign, not a unit
    const unit = (id: string): (Linear & { offset: boolean }) | null => (id === 'meter' ? { f: rat(1n), exact: true, dims: { m: 1 }, offset: false } : id === 'celsius' ? { f: rat(1n), exact: true, dims: { K: 1 }, offset: true } : null);
    expect(evaluateCompound('square-kilometer', unit, { kilo: { _power10: '3' } })).toEqual({ f: rat(1000000n), exact: true, dims: { m: 2 } });
    expect(() => evaluateCompound('celsius-per-meter', unit, {})).toThrow(/offset/);
    expect(() => evaluateCompound('furlong', unit, {})).toThrow(/cannot read 'furlong'/);
  });

  it('resolves what people type: symbols, plurals and compounds, and converts them exactly', () => {
    const find = lookup(records);
    for (const [typed, id] of [['mi', 'mile'], ['miles', 'mile'], ['ft', 'foot'], ['feet', 'foot'], ['lb', 'pound'], ['pounds', 'pound'],
      ['in', 'inch'], ['km/h', 'kilometer-per-hour'], ['mph', 'mile-per-hour'], ['kWh', 'kilowatt-hour'], ['kJ', 'kilojoule'], ['eV', 'eV']])
      expect(find(typed)?.id, typed).toBe(id);
    expect(convert(find('mph')!, find('km/h')!, '1')).toMatchObject({ ok: true, value_exact: '1.609344', exact: true });
    expect(convert(find('kWh')!, find('kJ')!, '1')).toMatchObject({ ok: true, value_exact: '3600', exact: true });
  });

  describe('convert', () => {
    const conv = (from: string, to: string, v: string) => convert(u(from), u(to), v);
    it('is exact for decimal-defined units, across sources', () => {
      expect(conv('[mi_i]', 'km', '1')).toMatchObject({ ok: true, value: 1.609344, value_exact: '1.609344', exact: true });
      expect(conv('mile', 'km', '1')).toMatchObject({ ok: true, value_exact: '1.609344', exact: true });
      expect(conv('foot', 'm', '1')).toMatchObject({ ok: true, value: 0.3048, value_exact: '0.3048', exact: true });
      expect(conv('[ft_i]', 'mile', '5280')).toMatchObject({ ok: true, value_exact: '1', exact: true });
      expect(conv('mol', 'mole', '2e3')).toMatchObject({ ok: true, value_exact: '2000', exact: true });
    });
    it('handles affine temperatures', () => {
      expect(conv('Cel', 'fahrenheit', '100')).toMatchObject({ ok: true, value: 212, value_exact: '212', exact: true });
      expect(conv('celsius', '[degF]', '-40')).toMatchObject({ ok: true, value_exact: '-40', exact: true });
      expect(conv('[degF]', 'Cel', '212')).toMatchObject({ ok: true, value_exact: '100', exact: true });
      const r = conv('fahrenheit', 'K', '0');
      expect(r).toMatchObject({ ok: true, exact: false, value: 255.37222222222223 });
      expect(r.ok && r.value_exact).toMatch(/^255\.3722222222222222\d$/);
    });
    it('flags results through approximate factors', () => {
      expect(conv('degree', 'deg', '1.5')).toMatchObject({ ok: true, value_exact: '1.5', exact: false });
    });
    it('refuses incompatible units, bad values and non-linear units', () => {
      expect(conv('mile', 'kilogram', '1')).toEqual({ ok: false, code: 'incompatible_units', message: "cannot convert 'mile' (length) to 'kilogram' (mass)" });
      expect(conv('hertz', 'rad', '1')).toMatchObject({ ok: false, code: 'incompatible_units' });
      expect(conv('mile', 'km', 'abc')).toEqual({ ok: false, code: 'invalid_value', message: "value 'abc' is not a number" });
      for (const bad of ['', '1e', 'NaN', 'Infinity', '1,5']) expect(conv('mile', 'km', bad)).toMatchObject({ ok: false, code: 'invalid_value' });
      expect(conv('B', 'Np', '1')).toMatchObject({ ok: false, code: 'unit_not_convertible', message: expect.stringContaining("'B'") });
      expect(conv('m', 'B', '1')).toMatchObject({ ok: false, code: 'unit_not_convertible' });
    });
  });
});

describe('units normalise (real installed packages)', () => {
  const records = source.normalise(realRaw());
  const units = byId(records);
  const u = (id: string) => units.get(id)!;

  it('has every upstream unit, unique ids, all valid', () => {
    expect(records.filter((r) => r.source === 'UCUM')).toHaveLength(772);
    expect(records.filter((r) => r.source === 'CLDR')).toHaveLength(155 + 79); // + the compounds CLDR names in English
    expect(units.size).toBe(1006);
    expect(records.filter((r) => r.id.startsWith('cldr-')).map((r) => r.id).sort()).toEqual(['cldr-bar', 'cldr-bit']);
    for (const r of records) expect(validate(r), `${r.id}: ${JSON.stringify(validate.errors)}`).toBe(true);
  });

  it('is mostly exact and refuses only special or arbitrary units', () => {
    const nonConvertible = records.filter((r) => !r.convertible);
    expect(nonConvertible.length).toBeGreaterThan(60);
    expect(nonConvertible.every((r) => /non-linear|arbitrary/.test(r.not_convertible_reason!))).toBe(true);
    expect(records.filter((r) => r.exact).length).toBeGreaterThan(750);
    for (const r of records.filter((r) => r.convertible)) expect(r.factor, r.id).not.toBeNull();
    // where ucum-lhc's definition and float magnitude disagree, the float is used and flagged inexact
    expect(u('[mu_0]')).toMatchObject({ factor: '0.0000012566370614359172', exact: false });
    expect(u('[LPF]')).toMatchObject({ factor: '1', exact: false });
  });

  it('serves the current definitions on the real tables (eV, au, torr exact; dalton CODATA 2018, inexact)', () => {
    expect(u('eV')).toMatchObject({ factor: '0.0000000000000000001602176634', exact: true, equivalent_to: ['electronvolt'] });
    expect(u('electronvolt')).toMatchObject({ factor: '0.0000000000000000001602176634', exact: true });
    expect(u('AU')).toMatchObject({ factor: '149597870700', exact: true, equivalent_to: ['astronomical-unit'] });
    expect(u('Torr')).toMatchObject({ factor: '20265/152', exact: true });
    expect(u('mm[Hg]')).toMatchObject({ factor: '133.322387415', exact: true });
    expect(u('cm[Hg]')).toMatchObject({ factor: '1333.22387415', exact: true });
    expect(u('dalton')).toMatchObject({ factor: '0.0000000000000000000000000016605390666', exact: false, equivalent_to: ['u'] });
    expect(u('[h]')).toMatchObject({ factor: '0.000000000000000000000000000000000662607015', exact: true });
    expect(u('[k]')).toMatchObject({ factor: '0.00000000000000000000001380649', exact: true });
    expect(records.filter((r) => r.defined_by).map((r) => r.id).sort()).toEqual(
      ['AU', 'Torr', '[PRU]', '[e]', '[h]', "[in_i'Hg]", '[k]', "[wood'U]", 'cm[Hg]', 'dalton', 'eV', 'electronvolt', 'm[Hg]', 'mm[Hg]', 'u'].sort());
  });

  it('resolves the units people type and converts compound and prefixed units exactly', () => {
    const find = lookup(records);
    for (const [typed, id] of [['mi', 'mile'], ['ft', 'foot'], ['lb', 'pound'], ['in', 'inch'], ['km/h', 'kilometer-per-hour'],
      ['mph', 'mile-per-hour'], ['kWh', 'kilowatt-hour'], ['kJ', 'kilojoule'], ['miles', 'mile'], ['feet', 'foot'], ['inches', 'inch'],
      ['pounds', 'pound'], ['mmHg', 'millimeter-ofhg'], ['square feet', 'square-foot']])
      expect(find(typed)?.id, typed).toBe(id);
    // A UCUM code without its brackets, as a path writes it (issue 36, item 11: /apis/units/gal_us was a 404).
    for (const [typed, id] of [['gal_us', '[gal_us]'], ['GAL_US', '[gal_us]'], ['gal_br', '[gal_br]'], ['mi_i', '[mi_i]'], ['ft_i', '[ft_i]']])
      expect(find(typed)?.id, typed).toBe(id);
    expect(convert(find('km/h')!, find('mph')!, '100')).toMatchObject({ ok: true, value_exact: '62.137119223733396962', exact: false }); // 100/1.609344 does not terminate
    expect(convert(find('mph')!, find('km/h')!, '60')).toMatchObject({ ok: true, value_exact: '96.56064', exact: true });
    expect(convert(find('kWh')!, find('J')!, '1')).toMatchObject({ ok: true, value_exact: '3600000', exact: true });
    expect(convert(find('kWh')!, find('kJ')!, '2.5')).toMatchObject({ ok: true, value_exact: '9000', exact: true });
    expect(convert(find('mmHg')!, find('mm[Hg]')!, '1')).toMatchObject({ ok: true, value_exact: '1', exact: true });
    expect(records.filter((r) => r.source === 'CLDR' && !r.convertible).map((r) => r.code)).toEqual(['beaufort']);
  });

  it('agrees across sources where both define a unit', () => {
    for (const [a, b] of [['[mi_i]', 'mile'], ['[gal_us]', 'gallon'], ['[gal_br]', 'gallon-imperial'], ['[lb_av]', 'pound'],
      ['h', 'hour'], ['l', 'liter'], ['Cel', 'celsius'], ['[degF]', 'fahrenheit'], ['kat', 'katal'], ['lx', 'lux'], ['By', 'byte']]) {
      expect(u(a).equivalent_to, `${a} ~ ${b}`).toContain(b);
      expect(convert(u(a), u(b), '1')).toMatchObject({ ok: true, value_exact: '1', exact: true });
    }
    expect(u('[cup_us]')).toMatchObject({ factor: '0.0002365882365', exact: true });
    expect(convert(u('[ly]'), u('light-year'), '1')).toMatchObject({ ok: true, value_exact: '1', exact: true });
    expect(convert(u('deg'), u('degree'), '90')).toMatchObject({ ok: true, value_exact: '90' });
  });
});
