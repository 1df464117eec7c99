/**
 * edge/wrangler.jsonc as data: the one description of the Worker's bindings, read by
 * wrangler for a deployment and by edge/local.ts for the local runtime, so the two cannot
 * disagree. The file's comments stand on lines of their own (that is all this reader strips).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../pipeline/paths.ts';

export const WRANGLER_CONFIG = path.join(PROJECT_ROOT, 'edge', 'wrangler.jsonc');

export interface WranglerConfig {
  name: string;
  compatibility_date: string;
  compatibility_flags: string[];
  r2_buckets: { binding: string; bucket_name: string }[];
  kv_namespaces: { binding: string; id: string }[];
  durable_objects: { bindings: { name: string; class_name: string }[] };
  vars: Record<string, string>;
}

export function readWranglerConfig(file = WRANGLER_CONFIG): WranglerConfig {
  const text = readFileSync(file, 'utf8').split('\n').filter((l) => !/^\s*\/\//.test(l)).join('\n');
  return JSON.parse(text) as WranglerConfig;
}
