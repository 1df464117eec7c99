/**
 * What crosses between the Worker and a project's meter (edge/meter.ts), a Durable Object
 * called over JS RPC: the methods, and ApiErrors as plain data (an Error's own fields do
 * not survive the boundary).
 */
import type { Admission } from '../server/core/state.ts';
import { ApiError, type ErrorCode } from '../server/http/errors.ts';
import type { KeyDoc } from '../server/state/accounts.ts';
import type { ChargeMode, Charged } from '../server/state/limits.ts';
import type { PlanName } from '../server/state/plans.ts';

/** An ApiError across the RPC boundary (its own fields, not an Error's). */
export interface WireError { error: { code: ErrorCode; message: string; details?: Record<string, unknown>; headers?: Record<string, string> } }
export const toWire = (e: ApiError): WireError => ({ error: { code: e.code, message: e.message, details: e.details, headers: e.headers } });
export const fromWire = (w: WireError) => new ApiError(w.error.code, w.error.message, w.error.details, w.error.headers);
export const isWire = (x: unknown): x is WireError => !!x && typeof x === 'object' && 'error' in x;

/** What the worker calls on a meter (JS RPC). */
export interface MeterStub {
  admit(keyId: string, mode: ChargeMode, now: number): Promise<Admission | WireError>;
  bill(plan: PlanName, now: number): Promise<Charged | WireError>;
  setSlice(slice: KeyDoc, hash: string): Promise<void>;
  setUsage(month: string, used: number, lastUsed?: number): Promise<void>;
  /** The count of a month and the last counted use (unix seconds), for the operator. */
  usage(month: string): Promise<{ used: number; last_used: number | null }>;
  /** What the Node server of the same state folder counted in a month (the quota is the sum). */
  setElsewhere(month: string, n: number): Promise<void>;
}

