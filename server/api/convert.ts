/**
 * /apis/units/convert: the one dataset endpoint that computes. The arithmetic lives
 * with the units source (sources/units/index.ts, exact rationals); this module only binds
 * it to HTTP: look both units up by id or alias, convert, map failures to the catalogue.
 */
import { DATASET_META } from './schemas.ts';
import type { SchemaObject } from 'ajv';
import { convert, type UnitRecord } from '../../sources/units/index.ts';
import { ApiError } from '../http/errors.ts';
import { datasetMeta, recordOrdinal, type Ctx, type Reply } from './handlers.ts';
import type { ParamSpec } from '../http/query.ts';

export const CONVERT_PARAMS: ParamSpec[] = [
  { name: 'from', required: true, description: 'Unit to convert from: a unit id (UCUM code or CLDR id) or alias.', schema: { type: 'string', minLength: 1, maxLength: 100 } },
  { name: 'to', required: true, description: 'Unit to convert to, of the same dimension.', schema: { type: 'string', minLength: 1, maxLength: 100 } },
  { name: 'value', required: true, description: 'Decimal number to convert, e.g. 1, -40, 2.5e3.', schema: { type: 'string', minLength: 1, maxLength: 100 } },
];

const UNIT_REF = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string' }, name: { type: 'string' } } };
export const CONVERT_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['data', 'meta'],
  properties: {
    data: {
      type: 'object',
      required: ['from', 'to', 'value', 'result', 'result_exact', 'exact'],
      properties: {
        from: UNIT_REF,
        to: UNIT_REF,
        value: { type: 'string', description: 'The input value as given.' },
        result: { type: 'number', description: 'The result as a JSON number (may be rounded to double precision).' },
        result_exact: { type: 'string', description: 'The result as a decimal string: exact when `exact` is true, else rounded to 20 significant digits.' },
        exact: { type: 'boolean' },
      },
    },
    meta: DATASET_META,
  },
};

/**
 * A unit named by a query parameter. One the dataset lacks is a bad parameter (400
 * `unknown_unit`, naming which), not a missing record: the path /apis/units/convert exists,
 * and the platform spec declares 200/400/401/429 for it.
 */
async function unit(ctx: Ctx, ds: string, param: 'from' | 'to'): Promise<UnitRecord> {
  const key = String(ctx.query[param]);
  let ord: number;
  try {
    ord = await recordOrdinal(ctx, ds, key);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'record_not_found') {
      throw new ApiError('unknown_unit', `${param}: no unit has the id or alias '${key.slice(0, 100)}' (see /apis/units?q=…)`, { parameter: param, value: key.slice(0, 100) });
    }
    throw err;
  }
  return JSON.parse((await ctx.release.record(ds, ord)).toString('utf8'));
}

export async function convertHandler(ctx: Ctx, ds: string): Promise<Reply> {
  const from = await unit(ctx, ds, 'from');
  const to = await unit(ctx, ds, 'to');
  const value = String(ctx.query.value);
  const r = convert(from, to, value);
  if (!r.ok) throw new ApiError(r.code, r.message, { from: from.id, to: to.id, value: value.slice(0, 100) });
  const data = {
    from: { id: from.id, name: from.name },
    to: { id: to.id, name: to.name },
    value,
    result: r.value,
    result_exact: r.value_exact,
    exact: r.exact,
  };
  return { kind: 'json', body: JSON.stringify({ data, meta: datasetMeta(ctx.release.datasets.get(ds)!) }) };
}
