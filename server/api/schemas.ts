/**
 * JSON Schemas of the envelopes the server really sends, shared by the route tables and
 * so by the OpenAPI documents (a generated client types `meta` from these). Kept beside
 * the handlers that write the bodies: handlers.ts `datasetMeta`, `freshness`, `page`,
 * `catalogue`. Open objects (no additionalProperties: false): a field may be added
 * without breaking clients.
 */
import type { SchemaObject } from 'ajv';

const str = { type: 'string' } as const;
const nullableStr = { type: ['string', 'null'] } as const;

export const LICENCE_SCHEMA: SchemaObject = {
  type: 'object', required: ['spdx', 'name', 'url'],
  properties: { spdx: { ...str, description: 'SPDX identifier where one exists, else a short name' }, name: str, url: str },
};

/** `meta.sources`: every source's licence and attribution, on every data response. */
export const SOURCES_SCHEMA: SchemaObject = {
  type: 'array',
  items: { type: 'object', required: ['name', 'url', 'licence', 'attribution'], properties: { name: str, url: str, licence: LICENCE_SCHEMA, attribution: str } },
};

/** handlers.ts `freshness`: only live feeds carry these. */
const FRESHNESS: Record<string, SchemaObject> = {
  upstream_time: { ...nullableStr, description: "The upstream's own timestamp (ISO 8601), else null" },
  fetched_at: { ...nullableStr, description: 'When the build fetched the live input' },
  stale: { type: 'boolean', description: "true when the data is older (upstream time, else fetch time) than the dataset's refresh.stale_after_seconds, or was carried forward; the age itself is the Data-Age header" },
  carried_forward_from: { ...str, description: 'Release whose data this is: kept because the upstream could not be reached, or held back' },
  held_back: {
    type: 'object', required: ['reason', 'since', 'data_from'],
    description: "The nightly's quality gate kept the previous data instead of a new build (its record count fell too far, its live feed was stale, or a record failed validation)",
    properties: {
      reason: str,
      since: { ...str, description: 'When the dataset was first held back (ISO 8601)' },
      data_from: { ...nullableStr, description: 'Release whose data is served' },
    },
  },
};

const DATASET_META_PROPS: Record<string, SchemaObject> = {
  dataset: str,
  contract_version: { ...str, description: "Semver of the dataset's response contract" },
  data_release: { ...str, description: 'Content hash of the records: changes exactly when the data changes' },
  upstream: { type: 'array', items: str },
  sources: SOURCES_SCHEMA,
  ...FRESHNESS,
};

export const DATASET_META: SchemaObject = {
  type: 'object', required: ['dataset', 'contract_version', 'data_release', 'upstream', 'sources'],
  properties: { ...DATASET_META_PROPS, expired: { type: 'boolean', description: 'A record past its end (weather alerts), still answered by id' } },
};

/** What a bounded search adds to meta (server/search-bounds.ts, README "Search cost bound"). */
export const SEARCH_FLAGS: Record<string, SchemaObject> = {
  order: { enum: ['relevance', 'match'], description: 'relevance: ranked by score; match: a broad query ranked by match kind, then list order' },
  partial: { type: 'boolean', description: 'true when words were left out or matched whole to keep the query within its cost bound' },
  ignored_words: { type: 'array', items: { type: 'string' } },
  unexpanded_words: { type: 'array', items: { type: 'string' } },
  match: { enum: ['partial'], description: 'partial: no record matched every word, so these are the records that match the most words (then by score); absent when every result matched every word' },
  unmatched_words: { type: 'array', items: { type: 'string' }, description: 'With match "partial": the query words no record matched at all' },
  unstemmed_words: { type: 'array', items: { type: 'string' }, description: 'Words searched without their English stem to keep the query within its cost bound' },
};

export const LIST_META: SchemaObject = {
  type: 'object', required: [...DATASET_META.required, 'total', 'limit', 'offset', 'next'],
  properties: {
    ...DATASET_META_PROPS,
    total: { type: 'integer', minimum: 0 }, limit: { type: 'integer', minimum: 1, maximum: 100 }, offset: { type: 'integer', minimum: 0 },
    next: { ...nullableStr, description: 'Path of the next page, or null' },
    q: str, ...SEARCH_FLAGS,
  },
};

/** `/apis`: available datasets and the absent ones with the reason. */
export const CATALOGUE_SCHEMA: SchemaObject = {
  type: 'object', required: ['data', 'meta'],
  properties: {
    data: {
      type: 'array',
      items: {
        oneOf: [
          {
            type: 'object', required: [...DATASET_META.required, 'title', 'description', 'coverage', 'records', 'status', 'endpoints', 'data_date'],
            properties: {
              ...DATASET_META_PROPS, title: str, description: str, coverage: nullableStr, records: { type: 'integer', minimum: 0 },
              status: { const: 'available' }, endpoints: str,
              missing_inputs: {
                type: 'array', description: 'Optional inputs this release was built without, each with the reason (the dataset serves what the others hold)',
                items: { type: 'object', required: ['input', 'reason'], properties: { input: str, reason: str } },
              },
              data_date: { ...nullableStr, description: "The data's own date: the upstream's timestamp, else when the live input was fetched; null for fixed data" },
              refresh: {
                type: 'object', required: ['expected_seconds', 'stale_after_seconds'], description: 'Live feeds: expected refresh interval and the age past which meta.stale is true',
                properties: { expected_seconds: { type: 'integer', minimum: 1 }, stale_after_seconds: { type: 'integer', minimum: 1 } },
              },
            },
          },
          { type: 'object', required: ['dataset', 'status', 'reason'], properties: { dataset: str, status: { const: 'absent' }, reason: str } },
        ],
      },
    },
    meta: { type: 'object', required: ['release', 'platform_contract_version'], properties: { release: str, platform_contract_version: str } },
  },
};
