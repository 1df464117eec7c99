/**
 * Other names people type for a language: its ISO 639-2/3 three-letter codes ("eng",
 * "deu", the bibliographic "ger") and its name in itself ("Deutsch").
 *
 * Three-letter codes: CLDR's supplemental/aliases.json languageAlias, which maps every
 * ISO 639-2/T and 639-3 code of a language that has a two-letter code to it (reason
 * "overlong": eng → en) and the ISO 639-2/B codes (reason "bibliographic": ger → de).
 * Other reasons (deprecated, legacy, macrolanguage) replace one language by another and
 * are not names of the same language, so they are not taken.
 *
 * Native names: each language's own CLDR locale names it (main/de/languages.json: de =
 * "Deutsch"). The locales read are cldr-core's availableLocales ("full") that are a bare
 * language subtag and that cldr-localenames-full has names for (300 of 323 in CLDR 48);
 * 296 of them name their own language.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
type Obj = Record<string, unknown>;

/**
 * Bare-language CLDR locales with a languages.json in cldr-localenames-full, from the
 * pinned packages. Found when first asked (the build reads the installed packages; the
 * edge bundles this module for the dataset's routes and never asks).
 */
let nativeLocales: string[] | undefined;
export function NATIVE_LOCALES(): string[] {
  if (nativeLocales) return nativeLocales;
  const { availableLocales } = require('cldr-core/availableLocales.json') as { availableLocales: { full: string[] } };
  return (nativeLocales = availableLocales.full.filter((l) => /^[a-z]{2,3}$/.test(l)).filter((l) => {
    try { return !!require.resolve(`cldr-localenames-full/main/${l}/languages.json`); } catch { return false; }
  }));
}

/** language subtag → its three-letter ISO 639 codes (overlong and bibliographic aliases). */
export function iso639Codes(raw: unknown, known: Set<string>): Map<string, string[]> {
  const aliases = ((raw as any)?.supplemental?.metadata?.alias?.languageAlias ?? null) as Record<string, { _reason: string; _replacement: string }> | null;
  if (!aliases) throw new Error('languages: cldr-core aliases.json has no supplemental.metadata.alias.languageAlias');
  const out = new Map<string, string[]>();
  for (const [code, a] of Object.entries(aliases)) {
    if (!/^[a-z]{3}$/.test(code) || !['overlong', 'bibliographic'].includes(a._reason)) continue;
    if (!known.has(a._replacement)) continue; // a replacement with script or region (sh → sr-Latn) is not a language record
    out.set(a._replacement, [...(out.get(a._replacement) ?? []), code].sort());
  }
  return out;
}

const fileOf = (l: string) => `main/${l}/languages.json`;
/** The input nativeNames reads: every such locale's languages.json, as one input. */
export const NATIVE_INPUT = {
  kind: 'npm-files', package: 'cldr-localenames-full', format: 'json',
  get files() {
    return NATIVE_LOCALES().map(fileOf);
  },
} as const;

/** language subtag → its name in its own CLDR locale, from { [file]: languages.json } (files absent are skipped). */
export function nativeNames(raw: unknown): Map<string, string> {
  const files = (raw ?? {}) as Obj, out = new Map<string, string>();
  for (const l of NATIVE_LOCALES()) {
    const file = files[fileOf(l)] as any;
    if (file === undefined) continue;
    const name = file?.main?.[l]?.localeDisplayNames?.languages?.[l];
    if (!file?.main?.[l]?.localeDisplayNames?.languages) throw new Error(`languages: cldr-localenames-full ${fileOf(l)} is not a languages file`);
    if (typeof name === 'string' && name.trim()) out.set(l, name); // some locales (byn, …) do not name their own language
  }
  return out;
}
