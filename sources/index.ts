/**
 * The list of dataset sources: a plain array, not a switch. Adding a dataset means
 * writing sources/<id>.ts against contract.ts and adding it here (see README,
 * "Adding a source").
 */
import type { DatasetSource } from './contract.ts';
import agencies from './agencies.ts';
import crosswalks from './crosswalks/index.ts';
import currencies from './currencies.ts';
import economicIndicators from './economic-indicators.ts';
import ingredients from './ingredients.ts';
import earthquakes from './earthquakes.ts';
import clinicalTrials from './clinical-trials.ts';
import elements from './elements.ts';
import geography from './geography/index.ts';
import holidays from './holidays.ts';
import languages from './languages/index.ts';
import lawsRegulations from './laws-regulations.ts';
import nonprofits from './nonprofits.ts';
import population from './population.ts';
import procurement from './procurement/index.ts';
import publicCompanies from './public-companies/index.ts';
import recalls from './recalls.ts';
import units from './units/index.ts';
import aviation from './aviation/index.ts';
import historicalEvents from './historical-events/index.ts';
import historicalPeople from './historical-people/index.ts';
import mythology from './mythology/index.ts';
import weatherAlerts from './weather-alerts.ts';
import { translationDataset } from './scripture/dataset.ts';
import { TRANSLATIONS } from './scripture/index.ts';
import { studyDataset } from './scripture/study/dataset.ts';

/** Platform datasets, each served under /apis/<id>. */
export const SOURCES: DatasetSource<any>[] = [
  elements, units, ...languages, currencies, holidays, ...geography,
  // Live feeds (issue 4): rolling or monthly upstreams with their own timestamps.
  earthquakes, weatherAlerts, clinicalTrials, recalls, procurement, publicCompanies, lawsRegulations, nonprofits, population,
  // Issue 11: reference datasets from mirrored upstream files (pinned sha256).
  crosswalks, agencies, ingredients, economicIndicators,
  // Issue 11, second half: mirrored reference upstreams.
  aviation, historicalEvents, historicalPeople, mythology,
];

/** Everything the build makes: the platform datasets, one dataset per translation, and the word-study layers. */
export const ALL_SOURCES: DatasetSource<any>[] = [...SOURCES, ...TRANSLATIONS.map(translationDataset), studyDataset()];
