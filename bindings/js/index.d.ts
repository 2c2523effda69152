// Types for dynarock-test (index.mjs).

export interface StartOptions {
  /** The dynarock binary (default: DYNAROCK_BIN, `dynarock` on PATH, a checkout's build/dynarock). */
  binary?: string;
  /** More `dynarock serve` flags, e.g. ['--shared-db']. */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  startTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** The region of clientConfig() (default us-east-1). */
  region?: string;
}

export interface FaultsDocument {
  seed?: number;
  rules: Record<string, unknown>[];
}

export declare class DynarockControlError extends Error {
  status: number;
  type: string;
  route: string;
  detail: string;
}

export declare class DynarockStartError extends Error {}

export declare class DynarockControl {
  constructor(url: string, options?: { requestTimeoutMs?: number; region?: string });
  readonly url: string;
  readonly port: number;
  reset(namespace?: string): Promise<string[]>;
  resetAll(): Promise<void>;
  snapshot(name: string): Promise<Record<string, unknown>>;
  restore(name: string): Promise<Record<string, unknown>>;
  snapshots(): Promise<{ name: string; created: number; tables: number; items: number; bytes: number }[]>;
  deleteSnapshot(name: string): Promise<Record<string, unknown>>;
  clock(): Promise<{ now: number; offsetSeconds: number }>;
  advanceClock(seconds: number): Promise<{ now: number; offsetSeconds: number }>;
  setClock(epochSeconds: number): Promise<{ now: number; offsetSeconds: number }>;
  resetClock(): Promise<{ now: number; offsetSeconds: number }>;
  setFaults(rules: Record<string, unknown>[] | FaultsDocument, options?: { seed?: number }): Promise<any>;
  faults(): Promise<any>;
  clearFaults(): Promise<any>;
  clientConfig<T extends object = {}>(extra?: T): {
    endpoint: string;
    region: string;
    credentials: { accessKeyId: string; secretAccessKey: string };
  } & T;
}

export declare class Dynarock extends DynarockControl {
  readonly pid: number;
  readonly running: boolean;
  stderr(): string;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export declare function findBinary(binary?: string): string;
export declare function startDynarock(options?: StartOptions): Promise<Dynarock>;

type Hook = (fn: () => unknown, timeout?: number) => unknown;
export interface SetupOptions extends StartOptions {
  hooks?: { beforeAll: Hook; afterAll: Hook; beforeEach: Hook };
  /** Reset before each test (default true). */
  reset?: boolean;
  /** Use this running server instead of starting one (default: DYNAROCK_URL). */
  url?: string;
}
export type DynarockHandle = Omit<DynarockControl, never> & { readonly server: DynarockControl };
export declare function setupDynarock(options?: SetupOptions): DynarockHandle;
export declare const dynarockJest: typeof setupDynarock;
export declare function createGlobalSetup(options?: StartOptions): () => Promise<Dynarock>;
export declare const globalSetup: () => Promise<Dynarock>;
export declare function globalTeardown(): Promise<void>;
