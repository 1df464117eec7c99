/** The translations the build makes (see catalogue.ts for the order served and the slugs without a source). */
import type { TranslationSource } from './contract.ts';
import { brenton, webCatholic } from './ebible.ts';
import kjv from './kjv.ts';
import oeb from './oeb.ts';
import rv from './rv.ts';
import { SWORD_TRANSLATIONS } from './sword.ts';
import web from './web.ts';

export const TRANSLATIONS: TranslationSource[] = [kjv, webCatholic, web, ...SWORD_TRANSLATIONS, rv, oeb, brenton];
