/**
 * The typed columns of a dataset's table in the SQLite downloads (pipeline/sqlite.ts),
 * read from the source's JSON Schema (issue 40, item 5).
 *
 * They used to be guessed from the values of the dataset's first pack: aviation's first
 * 1,000 records are airports, which have no runway length, so `length_ft` became TEXT and
 * `length_ft >= 10000` compared text with text (47,109 runways instead of 1,603). The
 * schema is the contract every record was validated against, so it says what a field
 * holds in every record, and a dataset added later is typed with no change here.
 *
 *   integer, boolean          → INTEGER (booleans as 0 and 1)
 *   number (with or without integers) → REAL
 *   string (dates included: ISO 8601 text, which sorts and compares as dates do) → TEXT
 *   anything else mixed (a string or a number) → no declared type: SQLite keeps each
 *     value as it is (BLOB affinity) rather than turning numbers into text
 * A field holding a list gets a table of its own; its items are typed the same way.
 */
import type { SchemaObject } from 'ajv';
import type { DatasetInfo } from './shards.ts';

export type SqlType = 'INTEGER' | 'REAL' | 'TEXT' | '';

export interface Column {
  /** The column's name: the field lower-cased, other characters as `_`. */
  name: string;
  field: string;
  type: SqlType;
  /** A list: a table `<table>__<name>` (ordinal, value) instead of a column. */
  array: boolean;
  /** An ISO 8601 date or date-time (a date bound filter, the expiry field, or format date / date-time). */
  date: boolean;
}

/** Fields that are the table's own columns, never a filter's. */
const RESERVED = new Set(['ordinal', 'id', 'record', 'search_boost']);

/** The fields a dataset's table has a column for: its filters', its coordinates, its expiry. */
export function columnFields(info: DatasetInfo): string[] {
  return [...new Set([...info.filters.map((f) => f.field), ...(info.geo ? [info.geo.lat, info.geo.lon] : []), ...(info.expires_field ? [info.expires_field] : [])])]
    .filter((f) => !RESERVED.has(f));
}

/** Every schema a record's `field` may be described by, over the branches of oneOf / anyOf / allOf. */
export function fieldSchemas(schema: SchemaObject, field: string): SchemaObject[] {
  const out: SchemaObject[] = [];
  const props = schema.properties as Record<string, SchemaObject> | undefined;
  if (props && field in props) out.push(props[field]);
  for (const k of ['oneOf', 'anyOf', 'allOf'] as const) for (const branch of (schema[k] as SchemaObject[] | undefined) ?? []) out.push(...fieldSchemas(branch, field));
  return out;
}

/** The JSON types a schema admits: from `type`, `const`, `enum` and nested branches. */
export function jsonTypes(s: SchemaObject): Set<string> {
  const out = new Set<string>();
  if (typeof s.type === 'string') out.add(s.type);
  if (Array.isArray(s.type)) for (const t of s.type) out.add(t);
  const of = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v);
  if ('const' in s) out.add(of(s.const));
  if (Array.isArray(s.enum) && !s.type) for (const v of s.enum) out.add(of(v));
  for (const k of ['oneOf', 'anyOf'] as const) for (const b of (s[k] as SchemaObject[] | undefined) ?? []) for (const t of jsonTypes(b)) out.add(t);
  return out;
}

/** The SQL type of values of these JSON types (null aside). */
export function sqlType(types: Iterable<string>): SqlType {
  const t = new Set([...types].filter((x) => x !== 'null'));
  if (!t.size) return 'TEXT'; // only ever null: no value to compare
  if ([...t].every((x) => x === 'integer' || x === 'boolean')) return 'INTEGER';
  if ([...t].every((x) => x === 'integer' || x === 'number' || x === 'boolean')) return 'REAL';
  if ([...t].every((x) => x === 'string')) return 'TEXT';
  return '';
}

/** The JSON type of one value, as jsonTypes names it. */
const typeOfValue = (v: unknown) => (v === null || v === undefined ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v);

/**
 * The columns of a dataset's table. With its record schema (every dataset of
 * sources/index.ts has one), from the schema; a field the schema does not describe is an
 * error naming it. Without one (a release built by other code, bundled here), from every
 * value of every record (`values`), never a sample.
 */
export function columnsOf(info: DatasetInfo, schema: SchemaObject | null, values?: () => Iterable<Record<string, unknown>>): Column[] {
  const fields = columnFields(info);
  const dateFields = new Set([...info.filters.filter((f) => f.compare?.type === 'date').map((f) => f.field), ...(info.expires_field ? [info.expires_field] : [])]);
  const seen = new Map<string, Set<string>>();
  if (!schema) {
    for (const f of fields) seen.set(f, new Set());
    for (const rec of values?.() ?? []) {
      for (const f of fields) {
        const v = rec[f];
        for (const x of Array.isArray(v) ? ['array', ...v.map(typeOfValue)] : [typeOfValue(v)]) seen.get(f)!.add(x);
      }
    }
  }
  return fields.map((field) => {
    let types: Set<string>;
    let items = new Set<string>();
    let date = dateFields.has(field);
    if (schema) {
      const described = fieldSchemas(schema, field);
      if (!described.length) throw new Error(`SQLite columns of ${info.id}: the record schema does not describe the filter field ${field}`);
      types = new Set(described.flatMap((s) => [...jsonTypes(s)]));
      for (const s of described) {
        if (s.format === 'date' || s.format === 'date-time') date = true;
        if (s.items) for (const t of jsonTypes(s.items as SchemaObject)) items.add(t);
      }
    } else {
      types = seen.get(field)!;
      items = new Set([...types].filter((t) => t !== 'array'));
    }
    const array = types.has('array');
    // A list's scalars outside the list (rare) are values of its table too.
    const scalar = [...types].filter((t) => t !== 'array');
    return { name: field.toLowerCase().replace(/[^a-z0-9_]+/g, '_'), field, type: sqlType(array ? [...items, ...scalar] : scalar), array, date };
  });
}
