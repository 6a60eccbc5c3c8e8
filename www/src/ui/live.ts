// "Call it for real": retryFetch from the page, every attempt drawn as it happens (via
// onAttempt) on a time strip and in a list. Bodies are shown as text, never as HTML.

import { errorMessage } from "../logic/errors.js";
import { formatDuration, formatNumber } from "../logic/format.js";
import { callSiteFor, defaultLiveUrl, parseHeaders, randomKey } from "../logic/live.js";
import type { BudgetOptions, Lang, PolicyOptions } from "../logic/state.js";
import { retryFetch, type AttemptInfo } from "../wasm/bridge.js";
import type { T } from "./i18n-dom.js";

export interface LivePolicy {
  policy: PolicyOptions;
  budget: BudgetOptions | null;
  /** "full jitter, 2 s … 30 s, 6 attempts" */
  description: string;
}

interface Drawn {
  info: AttemptInfo;
  /** ms since the call started: the attempt was sent, and its answer came back. */
  sent: number;
  answered: number;
}

/** The most of a body the page shows. */
const BODY_LIMIT = 20_000;

function byId<E extends HTMLElement>(id: string): E {
  const e = document.getElementById(id);
  if (!e) throw new Error(`#${id} is missing`);
  return e as E;
}

export class LivePanel {
  private readonly url = byId<HTMLInputElement>("live-url");
  private readonly method = byId<HTMLSelectElement>("live-method");
  private readonly headers = byId<HTMLTextAreaElement>("live-headers");
  private readonly idempotent = byId<HTMLInputElement>("live-idempotent");
  private readonly timeout = byId<HTMLInputElement>("live-timeout");
  private readonly send = byId<HTMLButtonElement>("live-send");
  private readonly cancel = byId<HTMLButtonElement>("live-cancel");
  private readonly log = byId<HTMLOListElement>("live-log");
  private readonly strip = byId<HTMLElement>("live-strip");
  private readonly status = byId<HTMLElement>("live-status");
  private readonly body = byId<HTMLElement>("live-body");
  private readonly policyText = byId<HTMLElement>("live-policy");
  private controller: AbortController | null = null;
  private drawn: Drawn[] = [];
  private waits: { from: number; to: number }[] = [];
  private started = 0;

  constructor(
    private readonly current: () => LivePolicy,
    private t: T,
    private lang: Lang,
  ) {
    this.url.value = defaultLiveUrl(randomKey());
    byId<HTMLFormElement>("live-form").addEventListener("submit", (e) => {
      e.preventDefault();
      void this.run();
    });
    this.cancel.addEventListener("click", () => this.controller?.abort());
    this.cancel.disabled = true;
    this.status.textContent = t("live.idle");
  }

  relabel(t: T, lang: Lang): void {
    this.t = t;
    this.lang = lang;
    this.refreshPolicy();
    if (!this.controller && this.drawn.length === 0) this.status.textContent = t("live.idle");
  }

  refreshPolicy(): void {
    this.policyText.textContent = this.t("live.policy", { policy: this.current().description });
  }

  private async run(): Promise<void> {
    if (this.controller) return;
    const { headers, bad } = parseHeaders(this.headers.value);
    if (bad.length > 0) {
      this.status.textContent = this.t("live.badHeaders", { lines: bad.join(", ") });
      return;
    }
    const { policy, budget } = this.current();
    const method = this.method.value;
    const url = this.url.value.trim();
    const timeoutText = this.timeout.value.trim();
    const controller = new AbortController();
    this.controller = controller;
    this.send.disabled = true;
    this.cancel.disabled = false;
    this.log.replaceChildren();
    this.strip.replaceChildren();
    this.body.textContent = "";
    this.drawn = [];
    this.waits = [];
    this.status.textContent = this.t("live.sending");
    this.started = Date.now();
    let attempts = 0;
    try {
      const res = await retryFetch(
        url,
        { method, headers },
        {
          policy,
          idempotent: this.idempotent.checked,
          signal: controller.signal,
          ...(timeoutText === "" ? {} : { attemptTimeoutMs: Number(timeoutText) }),
          ...(budget ? { budget, callSite: callSiteFor(method, url, location.href) } : {}),
          onAttempt: (a) => {
            attempts++;
            this.addAttempt(a);
          },
        },
      );
      const text = method === "HEAD" ? "" : await res.text();
      this.body.textContent = text.length > BODY_LIMIT ? `${text.slice(0, BODY_LIMIT)}…` : text;
      this.status.textContent = this.t("live.done", {
        status: `${res.status} ${res.statusText}`.trim(),
        n: attempts,
        t: formatDuration(Date.now() - this.started, this.lang),
      });
    } catch (e) {
      const name = e instanceof Error || e instanceof DOMException ? e.name : "";
      const reason = (e as { reason?: unknown } | null)?.reason;
      if (controller.signal.aborted || name === "AbortError") {
        this.status.textContent = this.t("live.cancelled");
      } else if (name === "RetryError") {
        this.status.textContent = this.t("live.gaveUp", { n: attempts, reason: String(reason ?? errorMessage(e)) });
      } else if (name === "BudgetExhaustedError") {
        this.status.textContent = this.t("live.budget", { reason: errorMessage(e) });
      } else {
        this.status.textContent = this.t("live.failed", { message: errorMessage(e) });
      }
    } finally {
      this.controller = null;
      this.send.disabled = false;
      this.cancel.disabled = true;
    }
  }

  private addAttempt(a: AttemptInfo): void {
    const answered = Date.now() - this.started;
    const sent = Math.max(0, a.startedMs - this.started);
    this.drawn.push({ info: a, sent, answered });
    if (a.decision === "retry" && a.delayMs !== undefined) this.waits.push({ from: answered, to: answered + a.delayMs });

    const kind = a.status !== undefined ? String(a.status) : (a.error ?? "error");
    const li = document.createElement("li");
    li.dataset["status"] = kind;
    li.className = `attempt ${a.decision} ${statusClass(a)}`;
    const head = document.createElement("span");
    head.className = "a-head";
    const num = document.createElement("span");
    num.className = "a-num";
    num.textContent = `#${a.number}`;
    const status = document.createElement("span");
    status.className = "a-status";
    status.textContent = kind;
    const at = document.createElement("span");
    at.className = "a-at";
    at.textContent = this.t("live.at", { t: formatDuration(sent, this.lang) });
    head.append(num, status, at);
    const reason = document.createElement("span");
    reason.className = "a-reason";
    reason.textContent = a.reason;
    li.append(head, reason);
    if (a.decision === "retry" && a.delayMs !== undefined) {
      const wait = document.createElement("span");
      wait.className = "a-wait";
      wait.textContent =
        this.t("live.wait", { d: formatDuration(a.delayMs, this.lang) }) + (a.fromServer ? ` · ${this.t("live.fromServer")}` : "");
      li.append(wait);
    }
    if (a.budgetTokens !== undefined) {
      const tokens = document.createElement("span");
      tokens.className = "a-tokens";
      tokens.textContent = this.t("live.tokens", { n: formatNumber(a.budgetTokens, this.lang, 2) });
      li.append(tokens);
    }
    this.log.append(li);
    this.layoutStrip();
  }

  /** Redraws the strip: each attempt a bar (sent → answered), each wait a dashed span. */
  private layoutStrip(): void {
    // A little room on the right for the last bar and the scale's label.
    const end = 1.04 * Math.max(1, ...this.drawn.map((d) => d.answered), ...this.waits.map((w) => w.to));
    const pct = (ms: number) => `${((100 * ms) / end).toFixed(2)}%`;
    const nodes: HTMLElement[] = [];
    for (const w of this.waits) {
      const span = document.createElement("span");
      span.className = "strip-wait";
      span.style.left = pct(w.from);
      span.style.width = pct(w.to - w.from);
      nodes.push(span);
    }
    for (const d of this.drawn) {
      const bar = document.createElement("span");
      bar.className = `strip-attempt ${statusClass(d.info)}`;
      bar.style.left = pct(d.sent);
      bar.style.width = `max(6px, ${pct(d.answered - d.sent)})`;
      bar.title = `#${d.info.number} ${d.info.status ?? d.info.error ?? ""}`;
      nodes.push(bar);
    }
    const scale = document.createElement("span");
    scale.className = "strip-end";
    scale.textContent = formatDuration(end, this.lang);
    nodes.push(scale);
    this.strip.replaceChildren(...nodes);
  }
}

function statusClass(a: AttemptInfo): string {
  if (a.decision === "success") return "ok";
  if (a.status !== undefined && a.status < 400) return "ok";
  return a.decision === "retry" ? "retrying" : "stopped";
}
