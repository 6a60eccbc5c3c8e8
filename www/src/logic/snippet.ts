// The embed snippet: the JavaScript that makes the same calls with the npm package, under the
// policy on screen.

import type { BudgetOptions, PolicyState } from "./state.js";

export interface SnippetInput {
  policy: PolicyState;
  budget: BudgetOptions | null;
  url: string;
  method: string;
  /** Localised comment lines (the snippet's code stays the same in every language). */
  comments: { init: string; seed: string; budget: string };
}

function literal(v: string): string {
  return JSON.stringify(v);
}

export function embedSnippet(i: SnippetInput): string {
  const p = i.policy;
  const method = i.method.toUpperCase();
  const policy = [
    `strategy: ${literal(p.strategy)}`,
    `baseMs: ${p.baseMs}`,
    `capMs: ${p.capMs}`,
    `maxAttempts: ${p.maxAttempts}`,
    `multiplier: ${p.multiplier}`,
  ].join(", ");
  const init = method === "GET" ? "{}" : `{ method: ${literal(method)} }`;
  const lines = [
    `import init, { retryFetch } from "stampede";`,
    ``,
    `await init(); // ${i.comments.init}`,
    ``,
    `const response = await retryFetch(${literal(i.url)}, ${init}, {`,
    `  // ${i.comments.seed}`,
    `  policy: { ${policy} },`,
  ];
  if (i.budget) {
    let path = i.url;
    try {
      path = new URL(i.url, "http://x.invalid").pathname;
    } catch {
      // keep the text as typed
    }
    lines.push(
      `  // ${i.comments.budget}`,
      `  callSite: ${literal(`${method} ${path}`)},`,
      `  budget: { capacity: ${i.budget.capacity}, refillPerSec: ${i.budget.refillPerSec} },`,
    );
  }
  lines.push(`});`, `console.log(response.status, await response.text());`);
  return lines.join("\n") + "\n";
}
