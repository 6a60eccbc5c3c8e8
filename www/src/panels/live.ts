// "Call it for real" and the snippet under it: the live panel (ui/live.ts) sends a real
// retryFetch with policy A, and the embed snippet repeats that call exactly (same URL,
// headers, options, call site) for the reader to copy into their own code.

import type { Key } from "../logic/i18n.js";
import { formatDuration, formatNumber } from "../logic/format.js";
import { embedSnippet } from "../logic/snippet.js";
import { hasServer, type State } from "../logic/state.js";
import { budgetOptions, policyOptions } from "../logic/run.js";
import { LivePanel } from "../ui/live.js";
import { byId, type PanelContext, type View } from "./panel.js";
import { setText } from "../ui/dom.js";

/** Policy A's budget as the call uses it: none where the form hides the budget (aws-occ,
 *  whose clients retry until their write wins), which a reader could then not turn off. */
function liveBudget(s: State): ReturnType<typeof budgetOptions> | null {
  return s.a.budget && hasServer(s.scenario) ? budgetOptions(s) : null;
}

/** Policy A in a line: "full jitter, 2 s … 30 s, ×2, 6 attempts". */
function describePolicy(s: State, { t, lang }: Pick<View, "t" | "lang">): string {
  // What the call sends (run.ts policyOptions): the backoff settings its strategy reads.
  const a = policyOptions(s.a);
  const parts = [
    t(`strategy.${a.strategy}` as Key),
    ...(a.baseMs === undefined ? [] : [a.capMs === undefined || a.capMs === a.baseMs ? formatDuration(a.baseMs, lang) : `${formatDuration(a.baseMs, lang)} … ${formatDuration(a.capMs, lang)}`]),
    ...(a.multiplier === undefined ? [] : [`×${formatNumber(a.multiplier, lang, 2)}`]),
    t("live.attemptsPart", { n: a.maxAttempts, count: a.maxAttempts }),
  ];
  if (liveBudget(s)) {
    parts.push(t("live.budgetPart", { capacity: formatNumber(s.budgetCapacity, lang), refill: formatNumber(s.budgetRefill, lang, 2) }));
  }
  return parts.join(", ");
}

export class LiveSection {
  private readonly panel: LivePanel;
  private readonly code = byId("embed-code");
  private readonly status = byId("embed-status");

  constructor(private readonly ctx: PanelContext) {
    const { t, lang } = ctx.view();
    this.panel = new LivePanel(
      () => {
        const s = ctx.state();
        return {
          policy: policyOptions(s.a),
          budget: liveBudget(s),
          description: describePolicy(s, ctx.view()),
        };
      },
      t,
      lang,
      () => this.renderEmbed(),
    );
    byId("embed-copy").addEventListener("click", () => void this.copyEmbed());
  }

  /** The wasm module is ready: Send works. */
  enable(): void {
    this.panel.enable();
  }

  relabel(): void {
    const { t, lang } = this.ctx.view();
    this.panel.relabel(t, lang);
    // "Copied" goes with the language it was said in (the copy's comments were in it too).
    setText(this.status, "");
  }

  /** Policy A changed: the panel's description of it follows. */
  refreshPolicy(): void {
    this.panel.refreshPolicy();
  }

  /** The snippet repeats the live panel's call exactly (same URL, headers, options, call site). */
  renderEmbed(): void {
    const s = this.ctx.state();
    const { t } = this.ctx.view();
    const call = this.panel.call();
    this.code.textContent = embedSnippet({
      policy: policyOptions(s.a),
      budget: liveBudget(s),
      url: call.url,
      method: call.method,
      headers: call.headers,
      idempotent: call.idempotent,
      attemptTimeoutMs: call.attemptTimeoutMs,
      callSite: call.callSite,
      breaker: call.breaker,
      hedging: call.hedging,
      demo: call.demo,
      comments: {
        init: t("embed.comment.init"),
        seed: t("embed.comment.seed"),
        budget: t("embed.comment.budget"),
        demo: t("embed.comment.demo"),
      },
    });
  }

  private async copyEmbed(): Promise<void> {
    try {
      await navigator.clipboard.writeText(this.code.textContent ?? "");
      this.status.textContent = this.ctx.view().t("embed.copied");
    } catch {
      // Select the code so that the reader can copy it by hand.
      const range = document.createRange();
      range.selectNodeContents(this.code);
      const sel = getSelection();
      sel?.removeAllRanges();
      sel?.addRange(range);
      this.status.textContent = this.ctx.view().t("share.failed");
    }
  }
}
