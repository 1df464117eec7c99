// The resolve hook registered by refuse-import.mjs (module customization hooks run on their own thread).
let refused = [];
export function initialize(names) {
  refused = names;
}
export async function resolve(specifier, context, next) {
  if (refused.some((n) => specifier === n || specifier.startsWith(`${n}/`))) throw new Error(`refused import of ${specifier} from ${context.parentURL}`);
  return next(specifier, context);
}
