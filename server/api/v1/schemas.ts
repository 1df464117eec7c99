/**
 * JSON Schemas of the /api/v1 bodies (server/v1/routes.ts `envelope`, text.ts
 * `verseItem`, `chapterLinks`), so that the OpenAPI catalogue types `data`,
 * `translation`, `book` and `meta` per endpoint.
 */
import type { SchemaObject } from 'ajv';
import { SEARCH_FLAGS, SOURCES_SCHEMA } from '../schemas.ts';
import { PLANS, type PlanName } from '../../state/plans.ts';

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const link = { type: ['string', 'null'] } as const;
const LINKS: SchemaObject = { type: 'object', required: ['self', 'previous', 'next'], properties: { self: link, previous: link, next: link } };

export const VERSE_SCHEMA: SchemaObject = {
  type: 'object', required: ['reference', 'book', 'chapter', 'verse', 'text', 'links'],
  properties: {
    reference: { ...str, description: 'Canonical <book_slug>.<chapter>.<verse>', examples: ['john.3.16'] },
    book: str, chapter: int, verse: int, text: str,
    strongs: { type: 'array', items: str, description: "Strong's numbers, where the source tags words" },
    links: LINKS,
  },
};
const CHAPTER: SchemaObject = { type: 'object', required: ['chapter', 'verses', 'links'], properties: { chapter: int, verses: { type: 'array', items: VERSE_SCHEMA }, links: LINKS } };

const META_PROPS: Record<string, SchemaObject> = {
  api_version: { const: 'v1' },
  endpoint: { ...str, description: 'e.g. text.verse, alias.chapter, search' },
  data_policy: { type: 'object', required: ['readable_text', 'generated_morphology'], properties: { readable_text: str, generated_morphology: str } },
  namespaces: { type: 'object', required: ['preferred', 'aliases'], properties: { preferred: { type: 'array', items: str }, aliases: str } },
  data_release: str,
  sources: SOURCES_SCHEMA,
};

/** The v1 envelope around `data`, with a translation (and book) where one is concerned and extra meta fields. */
export function v1Envelope(data: SchemaObject, opts: { translation?: boolean; book?: boolean; meta?: Record<string, SchemaObject>; metaRequired?: string[] } = {}): SchemaObject {
  const required = ['meta', 'data', ...(opts.translation ? ['translation'] : []), ...(opts.book ? ['book'] : [])];
  return {
    type: 'object', required,
    properties: {
      meta: { type: 'object', required: ['api_version', 'endpoint', 'data_policy', 'namespaces', ...(opts.metaRequired ?? [])], properties: { ...META_PROPS, ...opts.meta } },
      ...(opts.translation ? { translation: { type: 'object', required: ['slug', 'abbreviation'], properties: { slug: str, abbreviation: str } } } : {}),
      ...(opts.book ? { book: { type: 'object', required: ['slug', 'name'], properties: { slug: str, name: str } } } : {}),
      data,
    },
  };
}

export const VERSE_REPLY = v1Envelope(VERSE_SCHEMA, { translation: true, book: true });
export const CHAPTER_REPLY = v1Envelope(CHAPTER, { translation: true, book: true });
export const BOOK_REPLY = v1Envelope({ type: 'object', required: ['chapters'], properties: { chapters: { type: 'array', items: CHAPTER } } }, {
  translation: true, book: true, meta: { chapters: int, verses: int }, metaRequired: ['chapters', 'verses'],
});
export const RANGE_REPLY = v1Envelope({ type: 'array', items: VERSE_SCHEMA }, {
  translation: true, book: true, metaRequired: ['range'],
  meta: { range: { type: 'object', required: ['from', 'to', 'verses'], properties: { from: str, to: str, verses: int } } },
});
export const SEARCH_REPLY = v1Envelope({ type: 'array', items: VERSE_SCHEMA }, {
  translation: true, metaRequired: ['q', 'total', 'limit', 'offset', 'next', 'order'],
  meta: { q: str, total: int, limit: int, offset: int, next: link, ...SEARCH_FLAGS },
});
const PLAN_TABLE = (Object.keys(PLANS) as PlanName[]).map((n) => {
  const p = PLANS[n];
  return `| ${n} | ${p.subscribable ? `${p.price.amount} ${p.price.currency}/month` : 'not sold (exception limits only)'} | ${p.monthly} | ${p.burst} |`;
}).join('\n');
const nullable = (schema: Record<string, unknown>) => ({ oneOf: [{ type: 'null' }, schema] });
const named = { type: 'object', required: ['id', 'name'], properties: { id: str, name: str } };
/** Generated from the plan table (server/state/plans.ts), like the README's. */
export const KEY_REPLY = v1Envelope({
  type: 'object', required: ['key_id', 'tier', 'monthly_quota', 'current_usage', 'remaining_calls', 'last_used', 'status', 'plan', 'price', 'account', 'project'],
  description: `The calling key: its tier (a plan, or \`exception\` while an administrator's exception grants free use), the limits plan in force, price, quota and this month's usage, and its own account and project.\n\n| plan | price | requests per month | burst per second |\n|---|---|---|---|\n${PLAN_TABLE}`,
  properties: {
    key_id: str, tier: { enum: [...Object.keys(PLANS), 'exception'] }, monthly_quota: int, current_usage: int, remaining_calls: int,
    last_used: { type: ['string', 'null'] }, status: { enum: ['active', 'revoked'] },
    plan: { enum: Object.keys(PLANS), description: 'The plan whose monthly quota and burst apply (an exception names one).' },
    price: { type: 'object', required: ['amount', 'currency'], properties: { amount: { type: 'number' }, currency: { const: 'USD' } }, description: 'Monthly price; 0 under an exception.' },
    burst_per_second: int, month: str, resets_at: str, revoke_at: { type: ['string', 'null'] },
    account: nullable(named), project: nullable(named),
    subscription: nullable({ type: 'object', required: ['id', 'plan', 'status', 'started', 'ends_at'], properties: { id: str, plan: { enum: Object.keys(PLANS) }, status: { enum: ['active', 'cancelling'] }, started: str, ends_at: { type: ['string', 'null'] } } }),
    exception: nullable({ type: 'object', required: ['id', 'reason', 'limits', 'granted', 'ends_at'], properties: { id: str, reason: str, limits: { enum: Object.keys(PLANS) }, granted: str, ends_at: { type: ['string', 'null'] } } }),
  },
});
export const TRANSLATIONS_REPLY = v1Envelope({
  type: 'array',
  items: {
    oneOf: [
      {
        type: 'object', required: ['slug', 'name', 'abbreviation', 'language', 'available', 'edition', 'versification', 'verse_count', 'book_count', 'canon_groups', 'data_release', 'sources', 'links'],
        properties: {
          slug: str, name: str, abbreviation: str, language: str, available: { const: true }, edition: str, versification: str,
          verse_count: int, book_count: int,
          canon_groups: { type: 'object', additionalProperties: { type: 'object', required: ['books', 'verses'], properties: { books: int, verses: int } } },
          data_release: str, sources: SOURCES_SCHEMA, links: { type: 'object', required: ['books'], properties: { books: str } },
        },
      },
      { type: 'object', required: ['slug', 'name', 'available', 'reason'], properties: { slug: str, name: str, available: { const: false }, reason: str } },
    ],
  },
});
export const BOOKS_REPLY = v1Envelope({
  type: 'array',
  items: {
    type: 'object', required: ['slug', 'osis', 'name', 'group', 'chapters', 'verses', 'links'],
    properties: { slug: str, osis: str, name: str, group: str, chapters: int, verses: int, links: { type: 'object', required: ['book'], properties: { book: str } } },
  },
}, { translation: true });
