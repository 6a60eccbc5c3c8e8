// The embed snippet: the JavaScript that makes the same call as the live panel with the npm
// package, under the policy on screen — the same URL, method, headers, per-attempt timeout,
// idempotency and budget, under the same call site name.

import type { BudgetOptions, PolicyOptions } from "./run.js";

export interface SnippetInput {
  /** The policy as the call sends it (run.ts policyOptions: only what its strategy reads). */
  policy: PolicyOptions;
  budget: BudgetOptions | null;
  /** The URL as the call resolves it. */
  url: string;
  method: string;
  /** Request headers (the live panel's, without the lines it could not read). */
  headers?: Record<string, string>;
  /** retryFetch's `idempotent`: written only when true. */
  idempotent?: boolean;
  /** retryFetch's `attemptTimeoutMs`; null or undefined: none. */
  attemptTimeoutMs?: number | null;
  /** The budget's call site: the very string the live panel passes (see live.ts callSiteFor). */
  callSite?: string;
  /** A circuit breaker with the core's defaults, under the call site. */
  breaker?: boolean;
  /** Hedging instead of retries. */
  hedging?: { delayMs: number; maxAttempts: number } | null;
  /** The URL is the page's in-browser demo's, which exists only inside the page: the
   *  snippet says to put the reader's own API there. */
  demo?: boolean;
  /** Localised comment lines (the snippet's code stays the same in every language). */
  comments: { init: string; seed: string; budget: string; demo?: string };
}

function literal(v: string): string {
  return JSON.stringify(v);
}

/** A plain identifier stays bare as a key; anything else (X-Trace-Id) is quoted. */
function key(k: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : literal(k);
}

export function embedSnippet(i: SnippetInput): string {
  const p = i.policy;
  const method = i.method.toUpperCase();
  const policy = [
    `strategy: ${literal(p.strategy)}`,
    ...(p.baseMs === undefined ? [] : [`baseMs: ${p.baseMs}`]),
    ...(p.capMs === undefined ? [] : [`capMs: ${p.capMs}`]),
    `maxAttempts: ${p.maxAttempts}`,
    ...(p.multiplier === undefined ? [] : [`multiplier: ${p.multiplier}`]),
  ].join(", ");
  const headers = Object.entries(i.headers ?? {});
  const initParts: string[] = [];
  if (method !== "GET") initParts.push(`method: ${literal(method)}`);
  if (headers.length > 0) initParts.push(`headers: { ${headers.map(([k, v]) => `${key(k)}: ${literal(v)}`).join(", ")} }`);
  const init = initParts.length === 0 ? "{}" : `{ ${initParts.join(", ")} }`;
  const lines = [
    `import init, { retryFetch } from "stampede";`,
    ``,
    `await init(); // ${i.comments.init}`,
    ``,
    ...(i.demo && i.comments.demo ? [`// ${i.comments.demo}`] : []),
    `const response = await retryFetch(${literal(i.url)}, ${init}, {`,
    `  // ${i.comments.seed}`,
    `  policy: { ${policy} },`,
  ];
  if (i.idempotent) lines.push(`  idempotent: true,`);
  if (i.attemptTimeoutMs !== undefined && i.attemptTimeoutMs !== null && Number.isFinite(i.attemptTimeoutMs)) {
    lines.push(`  attemptTimeoutMs: ${i.attemptTimeoutMs},`);
  }
  if (i.budget || i.breaker) {
    if (i.budget) lines.push(`  // ${i.comments.budget}`);
    lines.push(`  callSite: ${literal(i.callSite ?? `${method} ${i.url}`)},`);
    if (i.budget) lines.push(`  budget: { capacity: ${i.budget.capacity}, refillPerSec: ${i.budget.refillPerSec} },`);
    if (i.breaker) lines.push(`  breaker: {},`);
  }
  if (i.hedging) lines.push(`  hedging: { delayMs: ${i.hedging.delayMs}, maxAttempts: ${i.hedging.maxAttempts} },`);
  lines.push(`});`, `console.log(response.status, await response.text());`);
  return lines.join("\n") + "\n";
}
