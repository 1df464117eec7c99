/**
 * The list of dataset sources: a plain array, not a switch. Adding a dataset means
 * writing sources/<id>.ts against contract.ts and adding it here (see README,
 * "Adding a source").
 */
import type { DatasetSource } from './contract.ts';
import elements from './elements.ts';
import units from './units.ts';
import { translationDataset } from './scripture/dataset.ts';
import { TRANSLATIONS } from './scripture/index.ts';

/** Platform datasets, each served under /apis/<id>. */
export const SOURCES: DatasetSource<any>[] = [elements, units];

/** Everything the build makes: the platform datasets and one dataset per translation. */
export const ALL_SOURCES: DatasetSource<any>[] = [...SOURCES, ...TRANSLATIONS.map(translationDataset)];
