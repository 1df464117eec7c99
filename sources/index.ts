/**
 * The list of dataset sources: a plain array, not a switch. Adding a dataset means
 * writing sources/<id>.ts against contract.ts and adding it here (see README,
 * "Adding a source").
 */
import type { DatasetSource } from './contract.ts';
import elements from './elements.ts';
import units from './units.ts';

export const SOURCES: DatasetSource<any>[] = [elements, units];
