/** Which keys of an answer its JSON Schema leaves undefined (issue 38, item 11: generated client types were `{}`). */

/** Paths of keys in `value` that `schema` does not define (following properties, items, additionalProperties and $ref into `root`). */
export function undefinedKeys(value: unknown, schema: any, root: any, at = '$', out = new Set<string>()): Set<string> {
  if (schema?.$ref) return undefinedKeys(value, root && resolve(root, schema.$ref), root, at, out);
  for (const alt of schema?.oneOf ?? schema?.anyOf ?? []) {
    const sub = new Set<string>();
    undefinedKeys(value, alt, root, at, sub);
    if (!sub.size) return out;
  }
  if (Array.isArray(value)) {
    for (const v of value) undefinedKeys(v, schema?.items, root, `${at}[]`, out);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const sub = schema?.properties?.[k] ?? (typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      if (!sub) out.add(`${at}.${k}`);
      else undefinedKeys(v, sub, root, `${at}.${k}`, out);
    }
  }
  return out;
}
const resolve = (root: any, ref: string) => ref.slice(2).split('/').reduce((o, p) => o?.[p.replace(/~1/g, '/').replace(/~0/g, '~')], root);
