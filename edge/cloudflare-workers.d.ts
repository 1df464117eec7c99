/** The one export of the Workers runtime's built-in module that edge/meter.ts uses. */
declare module 'cloudflare:workers' {
  export abstract class DurableObject<Env = unknown> {
    protected ctx: DurableObjectState;
    protected env: Env;
    constructor(ctx: DurableObjectState, env: Env);
  }
  export interface DurableObjectState {
    storage: {
      get<T>(key: string): Promise<T | undefined>;
      get<T>(keys: string[]): Promise<Map<string, T>>;
      put(entries: Record<string, unknown>): Promise<void>;
      put(key: string, value: unknown): Promise<void>;
      list<T>(options?: { prefix?: string }): Promise<Map<string, T>>;
    };
    blockConcurrencyWhile<T>(fn: () => Promise<T>): Promise<T>;
  }
}
