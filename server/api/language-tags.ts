/**
 * /apis/languages/{id} for a tag the registry does not list as a whole (en-US,
 * sr-Latn-RS, de-CH-1901): the tag is parsed by bcp-47 (wooorm's BCP 47 parser, rather
 * than a hand-written one) and answered with each subtag's registry record. A registered
 * tag (zh-Hant, i-klingon) is a record of its own and never reaches this; an unparsable
 * key or an unregistered subtag stays a 404 naming it.
 */
import { DATASET_META } from './schemas.ts';
import type { SchemaObject } from 'ajv';
import { parse } from 'bcp-47';
import { ApiError } from '../http/errors.ts';
import { datasetMeta, type Ctx, type Reply } from './handlers.ts';

export const TAG_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['data', 'meta'],
  properties: {
    data: {
      type: 'object',
      required: ['tag', 'subtags', 'extensions', 'private_use'],
      properties: {
        tag: { type: 'string', description: 'The tag as requested' },
        subtags: {
          type: 'array',
          description: 'language, extlang, script, region and variant subtags in tag order, each with its registry record',
          items: { type: 'object', required: ['type', 'subtag', 'record'], properties: { type: { type: 'string' }, subtag: { type: 'string' }, record: { type: 'object' } } },
        },
        extensions: { type: 'array', items: { type: 'string' }, description: 'Extension sequences (u-ca-gregory), not looked up' },
        private_use: { type: 'array', items: { type: 'string' }, description: 'Private-use subtags (x-…), not looked up' },
      },
    },
    meta: DATASET_META,
  },
};

/** The subtags of a tag with ≥ 2 parts, each resolved to its record; null when `key` is no such tag. */
export async function tagReply(ctx: Ctx, ds: string, key: string): Promise<Reply | null> {
  if (!key.includes('-')) return null;
  const p = parse(key, { normalize: false });
  if (!p.language) return null; // not well-formed (or a grandfathered tag, which is a record of its own)
  const parts: [string, string][] = [['language', p.language], ...p.extendedLanguageSubtags.map((s) => ['extlang', s] as [string, string]),
    ...(p.script ? [['script', p.script] as [string, string]] : []), ...(p.region ? [['region', p.region] as [string, string]] : []),
    ...p.variants.map((s) => ['variant', s] as [string, string])];
  const subtags = [];
  for (const [type, subtag] of parts) {
    const ord = await ctx.release.lookup(ds, type === 'language' ? subtag : `${type}:${subtag}`);
    if (ord === undefined) throw new ApiError('record_not_found', `${ds} has no ${type} subtag '${subtag}' (in tag '${key.slice(0, 100)}')`, { dataset: ds, id: key.slice(0, 100), subtag });
    subtags.push({ type, subtag, record: JSON.parse((await ctx.release.record(ds, ord)).toString('utf8')) });
  }
  const data = {
    tag: key, subtags,
    extensions: p.extensions.map((e) => `${e.singleton}-${e.extensions.join('-')}`), private_use: p.privateuse,
  };
  return { kind: 'json', body: JSON.stringify({ data, meta: datasetMeta(ctx.release.datasets.get(ds)!) }) };
}
