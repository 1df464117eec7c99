/**
 * Record validation: every record of every source is checked against its JSON Schema
 * before anything is written. The first bad record fails the build, naming the source,
 * the record and the field, so a changed upstream is noticed rather than served.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import type { DatasetSource } from '../sources/contract.ts';

// ajv ships CommonJS; under ESM the class may sit on .default.
const Ajv2020 = ((Ajv2020Module as any).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;

export class InvalidRecord extends Error {}

export function validateRecords(source: DatasetSource<any>, records: { id: string }[]): void {
  const check = recordValidator(source);
  records.forEach(check);
}

/**
 * A per-record check for streamed datasets (records are validated as they pass); the
 * n-th call checks record n, and duplicate ids are caught across calls.
 */
export function recordValidator(source: DatasetSource<any>, opts = { duplicates: true }): (record: { id: string }, i: number) => void {
  const ajv = new Ajv2020({ allErrors: false, strict: false });
  const check = ajv.compile(source.schema);
  const seen = new Set<string>();
  return (record, i) => {
    const id = typeof record?.id === 'string' ? record.id : `#${i}`;
    if (!check(record)) {
      const e = check.errors![0];
      const field = e.instancePath || (e.params as any).missingProperty || (e.params as any).additionalProperty || '(record)';
      throw new InvalidRecord(`source ${source.id}: record ${JSON.stringify(id)}: field ${field}: ${e.message}`);
    }
    if (!opts.duplicates) return;
    if (seen.has(record.id)) throw new InvalidRecord(`source ${source.id}: record ${JSON.stringify(id)}: field /id: duplicate id`);
    seen.add(record.id);
  };
}
