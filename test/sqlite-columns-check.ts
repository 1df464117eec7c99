/**
 * Checks one SQLite download against the record schemas (issue 40, item 5), every row of
 * every table, not samples:
 *  - every column of a dataset's table (and every list table's `value`) has the type its
 *    field has in the record schema: INTEGER for integers and booleans, REAL for numbers,
 *    TEXT for strings; a numeric field is never a TEXT column;
 *  - every value of every typed column of every table is stored as that type (SQLite keeps
 *    '12' in an INTEGER column as text when it cannot convert it; a number in a TEXT column
 *    becomes text);
 *  - every value of a date field (a date bound filter, the expiry field) is ISO 8601 text.
 * The schema is read here on its own (properties and oneOf / anyOf / allOf branches), not
 * through pipeline/sqlite-columns.ts, so the check does not repeat the code it checks.
 */
import Database from 'better-sqlite3';
import type { SchemaObject } from 'ajv';
import type { DatasetInfo } from '../pipeline/shards.ts';

const ISO = /^-?\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** The JSON types a record schema gives `field`, over every branch. */
function typesOf(schema: SchemaObject, field: string, items = false): Set<string> {
  const out = new Set<string>();
  const add = (s: SchemaObject | undefined) => {
    if (!s) return;
    const target = items && s.items ? (s.items as SchemaObject) : s;
    for (const t of [target.type ?? []].flat() as string[]) out.add(t);
    if ('const' in target) out.add(typeof target.const === 'number' ? (Number.isInteger(target.const) ? 'integer' : 'number') : target.const === null ? 'null' : typeof target.const);
    if (!target.type && Array.isArray(target.enum)) for (const v of target.enum) out.add(v === null ? 'null' : typeof v === 'number' ? 'number' : typeof v);
  };
  const walk = (s: SchemaObject) => {
    add((s.properties as Record<string, SchemaObject> | undefined)?.[field]);
    for (const k of ['oneOf', 'anyOf', 'allOf']) for (const b of (s[k] as SchemaObject[] | undefined) ?? []) walk(b);
  };
  walk(schema);
  out.delete('null');
  return out;
}

const expected = (types: Set<string>) => {
  const t = [...types].filter((x) => x !== 'array');
  if (t.every((x) => x === 'integer' || x === 'boolean')) return ['INTEGER'];
  if (t.every((x) => x === 'integer' || x === 'number' || x === 'boolean')) return ['REAL'];
  if (t.every((x) => x === 'string')) return ['TEXT'];
  return [''];
};

export interface CheckResult { problems: string[]; tables: number; columns: number; values: number }

/** The column name of a field (pipeline/sqlite-columns.ts names them so). */
const columnName = (field: string) => field.toLowerCase().replace(/[^a-z0-9_]+/g, '_');

/**
 * Problems found in `file` (none: it holds to the schemas), with what was checked. `infos`
 * are the release's manifest entries: which fields are filters, coordinates, dates.
 */
export function checkDatabase(file: string, schemas: Record<string, SchemaObject | null>, infos: Record<string, DatasetInfo>): CheckResult {
  const db = new Database(file, { readonly: true });
  const problems: string[] = [];
  let columns = 0, values = 0;
  const q = (n: string) => `"${n.replace(/"/g, '""')}"`;
  const info = (t: string) => db.prepare(`PRAGMA table_info(${q(t)})`).all() as { name: string; type: string }[];
  try {
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]).map((t) => t.name);
    // Every typed column of every table holds values of its type (one scan per table).
    for (const t of tables) {
      const typed = info(t).filter((c) => c.type === 'INTEGER' || c.type === 'REAL' || c.type === 'TEXT');
      if (!typed.length) continue;
      const allowed = (type: string) => (type === 'TEXT' ? "('text', 'null')" : "('integer', 'real', 'null')");
      const row = db.prepare(`SELECT count(*) AS n${typed.map((c, i) => `, sum(typeof(${q(c.name)}) NOT IN ${allowed(c.type)}) AS c${i}`).join('')} FROM ${q(t)}`).get() as Record<string, number>;
      columns += typed.length;
      values += row.n * typed.length;
      typed.forEach((c, i) => {
        if (row[`c${i}`]) problems.push(`${t}.${c.name} (${c.type}): ${row[`c${i}`]} values of another type`);
      });
    }
    // Each dataset table has a column (or a list table) per filter, coordinate and expiry
    // field, of the type its field has in the schema; dates are ISO 8601 text.
    for (const { id, table_name: t } of db.prepare("SELECT id, table_name FROM almanac_datasets WHERE table_name NOT IN ('verses', 'study_tokens')").all() as { id: string; table_name: string }[]) {
      const schema = schemas[id];
      const i = infos[id];
      if (!schema || !i) {
        problems.push(`${id}: no record schema or manifest entry to check ${t} against`);
        continue;
      }
      const fields = new Set([...i.filters.map((f) => f.field), ...(i.geo ? [i.geo.lat, i.geo.lon] : []), ...(i.expires_field ? [i.expires_field] : [])]);
      const dates = new Set([...i.filters.filter((f) => f.compare?.type === 'date').map((f) => f.field), ...(i.expires_field ? [i.expires_field] : [])]);
      const cols = new Map(info(t).map((c) => [c.name, c.type]));
      for (const field of fields) {
        if (['ordinal', 'id', 'record', 'search_boost'].includes(field)) continue;
        const name = columnName(field);
        const types = typesOf(schema, field);
        const list = types.has('array');
        const declared = list ? info(`${t}__${name}`).find((c) => c.name === 'value')?.type : cols.get(name);
        if (declared === undefined) {
          problems.push(`${t}: no ${list ? `list table ${t}__${name}` : `column ${name}`} for the field ${field}`);
          continue;
        }
        const want = expected(list ? new Set([...typesOf(schema, field, true), ...[...types].filter((x) => x !== 'array')]) : types);
        if (!want.includes(declared)) problems.push(`${list ? `${t}__${name}.value` : `${t}.${name}`}: declared ${declared || '(none)'}, the schema says ${[...(list ? typesOf(schema, field, true) : types)].join('|')} for ${field}`);
        if (dates.has(field)) {
          const [table, col] = list ? [`${t}__${name}`, 'value'] : [t, name];
          for (const r of db.prepare(`SELECT ${q(col)} AS v FROM ${q(table)} WHERE ${q(col)} IS NOT NULL`).iterate() as Iterable<{ v: unknown }>) {
            if (typeof r.v !== 'string' || !ISO.test(r.v)) {
              problems.push(`${table}.${col}: ${JSON.stringify(r.v)} is not an ISO 8601 date or time`);
              break;
            }
          }
        }
      }
    }
    return { problems, tables: tables.length, columns, values };
  } finally {
    db.close();
  }
}
