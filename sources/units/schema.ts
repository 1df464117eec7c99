/** The units record schema: field meanings, and the key order every record is written in. */
export interface UnitRecord {
  id: string; source: 'UCUM' | 'CLDR'; code: string; ci_code: string | null; name: string; symbol: string | null;
  quantity: string | null; dimension: string; factor: string | null; offset: string | null; exact: boolean; defined_by: string | null;
  convertible: boolean; not_convertible_reason: string | null; synonyms: string[]; common_names: string[]; systems: string[]; equivalent_to: string[];
}

const nullable = (type: string, extra: object = {}) => ({ type: [type, 'null'], ...extra });
const strings = (description: string) => ({ type: 'array', items: { type: 'string' }, description });
const decimal = { pattern: '^-?\\d+(\\.\\d+)?(/\\d+)?$' };
export const properties = {
  id: { type: 'string', minLength: 1, description: 'UCUM case-sensitive code, or CLDR unit id ("cldr-" prefixed where it collides with a UCUM code)' },
  source: { type: 'string', enum: ['UCUM', 'CLDR'] },
  code: { type: 'string', description: 'The upstream code (differs from id only on a collision)' },
  ci_code: nullable('string', { description: 'UCUM case-insensitive code' }),
  name: { type: 'string' },
  symbol: nullable('string', { description: 'UCUM print symbol (markup removed), or the CLDR English short symbol' }),
  quantity: nullable('string', { description: "The source's own quantity name (UCUM and CLDR vocabularies differ)" }),
  dimension: { type: 'string', description: 'Canonical dimension over m kg s A K mol cd rad bit (+ CLDR em night pixel year), e.g. "m2.kg.s-2"; "1" = dimensionless. Equal keys convert.' },
  factor: nullable('string', { ...decimal, description: 'base = value × factor + offset; exact "p/q" or decimal, rounded to 20 digits when exact is false; null when not convertible' }),
  offset: nullable('string', { ...decimal, description: 'Affine offset in the base unit (temperature scales), else null' }),
  exact: { type: 'boolean', description: 'factor and offset are known exactly: true only where the definition is exact (not a measurement or a rounding)' },
  defined_by: nullable('string', { description: "Where the factor follows a current definition instead of the upstream's table (SI 2019, IAU 2012, CODATA 2018, NIST SP 811): the definitions used, cited; else null" }),
  convertible: { type: 'boolean' },
  not_convertible_reason: nullable('string'),
  synonyms: strings('UCUM synonyms'),
  common_names: strings('CLDR English names, plurals and symbols (cldr-units-full en), e.g. "miles", "mi"; each is a lookup alias unless two units share it'),
  systems: strings('CLDR systems, or the UCUM class'),
  equivalent_to: strings("Ids of the other source's units with identical dimension, factor and offset"),
};
