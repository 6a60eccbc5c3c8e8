/* stampede/fetch: the retry policy, classifier, Retry-After, budgets and retryFetch without the
 * simulator, on a wasm module of its own (less than half the full one). The same API as the
 * full entry, whose types these are, less Simulation and the settings tables (defaults, limits,
 * strategies, scenarios). Its classes are its own: an error thrown by one entry is not an
 * instance of the other entry's RetryError, so an app imports from one entry only. */
export {
  default,
  initSync,
  RetryPolicy,
  classify,
  parseRetryAfter,
  Budget,
  retryFetch,
  RetryError,
  BudgetExhaustedError,
  CircuitOpenError,
  ThrottledError,
} from "../stampede.js";
export type {
  Strategy,
  TransportErrorKind,
  PolicyOptions,
  ClassifyInput,
  Verdict,
  BudgetOptions,
  BudgetKind,
  BucketBudgetOptions,
  RatioBudgetOptions,
  GrpcBudgetOptions,
  AwsBudgetOptions,
  BreakerMode,
  BreakerOptions,
  ThrottleOptions,
  HedgingOptions,
  AttemptInfo,
  RetryFetchOptions,
  Unit,
  SettingsErrorCode,
  SettingsErrorInfo,
  SettingsRangeError,
  SettingsTypeError,
  SettingsError,
} from "../stampede.js";
