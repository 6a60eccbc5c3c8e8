// "Call it for real": retryFetch from the page, every attempt drawn as it happens (via
// onAttempt) on a time strip and in a list. Bodies are shown as text, never as HTML.
// Every Send passes policy A and, when it spends one, the current budget settings under the
// call site's name: the package's registry reconfigures the bucket when they change, so a
// new capacity or refill applies from the next Send. The bucket's tokens come from the
// package too (each attempt reports them).

import { readBody, untilAborted } from "../logic/body.js";
import { CORE_LIMITS } from "../generated/core.js";
import { errorData, errorMessage, localizeError } from "../logic/errors.js";
import { clipText, formatDuration, formatNumber } from "../logic/format.js";
import { localizeReason } from "../logic/reasons.js";
import {
  callSiteFor,
  defaultLiveUrl,
  demoLiveUrl,
  endpointOf,
  fetchable,
  mayBeServed,
  parseHeaders,
  outOfLimit,
  parseTimeout,
  type LiveOption,
  type ParsedTimeout,
  randomKey,
  type Endpoint,
} from "../logic/live.js";
import type { Lang } from "../logic/state.js";
import { stripRows } from "../logic/strip.js";
import type { BudgetOptions, PolicyOptions } from "../logic/run.js";
import { retryFetch, type AttemptInfo } from "../wasm/bridge.js";
import type { T } from "./i18n-dom.js";
import { byId } from "./dom.js";
import { DemoUnavailable, demoReady, keepDemoAlive, probeServer } from "./endpoint.js";

export interface LivePolicy {
  policy: PolicyOptions;
  budget: BudgetOptions | null;
  /** "full jitter, 2 s … 30 s, 6 attempts" */
  description: string;
}

/** What Send would call, as the embed snippet repeats it. */
export interface LiveCall {
  /** A circuit breaker with the core's defaults (Polly's), kept under the call site. */
  breaker: boolean;
  /** Hedging instead of retries; null when off (or its delay is not a number yet). */
  hedging: { delayMs: number; maxAttempts: number } | null;
  /** The URL resolved against the page. */
  url: string;
  method: string;
  headers: Record<string, string>;
  idempotent: boolean;
  /** null: no per-attempt timeout (or one that is not a number yet). */
  attemptTimeoutMs: number | null;
  /** The budget's bucket name (method, origin and path). */
  callSite: string;
  /** The URL is the in-page demo's (a Service Worker's): it exists only inside this page. */
  demo: boolean;
}

/** An attempt as retryFetch reports it (with hedging: sent as a hedge, and the winner). */
type Attempt = AttemptInfo;

/** The hedges' attempts in all, as the core bounds them. */
const HEDGE_MAX = CORE_LIMITS["hedging.maxAttempts"] ?? { min: 2, max: 5 };

interface Drawn {
  info: Attempt;
  /** ms since the call started: the attempt was sent, and its answer came back. */
  sent: number;
  answered: number;
}

/** The most of a body the page shows. */
const BODY_LIMIT = 20_000;
/** How long the panel reads a body after its headers came: what arrived by then is shown, cut. */
const BODY_MS = 5_000;

export class LivePanel {
  private readonly endpoint = byId<HTMLSelectElement>("live-endpoint");
  private readonly endpointNote = byId<HTMLElement>("live-endpoint-note");
  private readonly url = byId<HTMLInputElement>("live-url");
  private readonly method = byId<HTMLSelectElement>("live-method");
  private readonly headers = byId<HTMLTextAreaElement>("live-headers");
  private readonly idempotent = byId<HTMLInputElement>("live-idempotent");
  private readonly timeout = byId<HTMLInputElement>("live-timeout");
  private readonly breaker = byId<HTMLInputElement>("live-breaker");
  private readonly hedging = byId<HTMLInputElement>("live-hedging");
  private readonly hedgeDelay = byId<HTMLInputElement>("live-hedge-delay");
  private readonly hedgeError = byId<HTMLElement>("live-hedge-delay-error");
  private readonly send = byId<HTMLButtonElement>("live-send");
  private readonly cancel = byId<HTMLButtonElement>("live-cancel");
  private readonly log = byId<HTMLOListElement>("live-log");
  private readonly strip = byId<HTMLElement>("live-strip");
  private readonly status = byId<HTMLElement>("live-status");
  /** How the status line is worded, kept so that a language switch words it again (it stayed
   *  in the old language). Data it shows (a duration, a status line) is taken when it is set. */
  private statusWords: () => string = () => this.t("live.idle");
  /** Whether the status is a refusal of the form's input (headers, URL), not a call's. */
  private inputRefused = false;
  private readonly body = byId<HTMLElement>("live-body");
  private readonly policyText = byId<HTMLElement>("live-policy");
  private readonly budgetText = byId<HTMLElement>("live-budget");
  private readonly timeoutError = byId<HTMLElement>("live-timeout-error");
  private controller: AbortController | null = null;
  /** The bucket's tokens after the last call's last attempt, and the call site they were for. */
  private lastTokens: { site: string; n: number } | null = null;
  private timeoutProblem: string | null = null;
  private hedgeProblem: string | null = null;
  private ready = false;
  /** Whether the probe for `stampede serve` has answered (Send waits for it). */
  private probed = false;
  /** The flaky endpoint's key: a new one after each call to it, so that every Send shows
   *  the two 503s and their retries (with one key per visit, a second Send got 200 at once). */
  private key = randomKey();
  /** The flaky URL the last call used, its key spent (the next Send renews it). */
  private spent: string | null = null;
  private drawn: Drawn[] = [];
  private waits: { from: number; to: number }[] = [];
  private started = 0;

  constructor(
    private readonly current: () => LivePolicy,
    private t: T,
    private lang: Lang,
    /** Called when anything the call is made of changes (the embed snippet follows). */
    private readonly onChange: () => void = () => {},
  ) {
    // The real server's endpoint until the probe says there is none (then the in-browser one).
    this.url.value = defaultLiveUrl(this.key);
    this.endpoint.value = "server";
    this.showEndpointNote();
    // After the constructor: a choice calls onChange, whose owner must hold the panel by then.
    queueMicrotask(() => void this.chooseEndpoint());
    this.endpoint.addEventListener("change", () => this.pick(this.endpoint.value as Endpoint));
    this.url.addEventListener("input", () => this.followUrl());
    byId<HTMLFormElement>("live-form").addEventListener("submit", (e) => {
      e.preventDefault();
      void this.run();
    });
    this.cancel.addEventListener("click", () => this.controller?.abort());
    this.cancel.disabled = true;
    // retryFetch lives in the wasm module: nothing is sent before it has loaded.
    this.send.disabled = true;
    this.say(() => this.t("live.idle"));
    const changed = () => {
      this.checkTimeout();
      this.refreshBudget();
      this.onChange();
    };
    for (const el of [this.url, this.headers, this.timeout, this.hedgeDelay]) el.addEventListener("input", changed);
    for (const el of [this.method, this.idempotent, this.breaker, this.hedging]) el.addEventListener("change", changed);
  }

  /** The wasm module is ready: Send works (once the endpoint is known). */
  enable(): void {
    this.ready = true;
    if (!this.controller) this.send.disabled = !this.probed;
  }

  /** `stampede serve` on this origin is the default; without it, the in-browser endpoint. */
  private async chooseEndpoint(): Promise<void> {
    const server = mayBeServed(location.pathname) && (await probeServer());
    const option = this.endpoint.querySelector<HTMLOptionElement>('option[value="server"]');
    if (option) option.disabled = !server;
    // Unless the reader has chosen already.
    if (this.endpoint.value === "server" && this.url.value === defaultLiveUrl(this.key) && !server) this.pick("demo");
    this.probed = true;
    // A hook for tests: what the probe found.
    this.endpoint.dataset["probed"] = server ? "server" : "none";
    if (this.ready && !this.controller) this.send.disabled = false;
  }

  /** The reader picked an endpoint: the URL box follows (a custom URL is theirs to type). */
  private pick(endpoint: Endpoint): void {
    this.endpoint.value = endpoint;
    // Another endpoint starts over too: a key the last call spent is not offered again.
    if (this.spent !== null && endpoint !== "custom") {
      this.key = randomKey();
      this.spent = null;
    }
    // A pick between calls starts the panel over: the last URL's error (or result) no longer
    // stood for the URL now in the box.
    if (endpoint !== "custom" && this.controller === null) {
      this.url.removeAttribute("aria-invalid");
      this.clearCall();
      this.say(() => this.t("live.idle"));
    }
    if (endpoint === "server") this.url.value = defaultLiveUrl(this.key);
    if (endpoint === "demo") {
      this.url.value = demoLiveUrl(this.key);
      // Start the worker now, so that it controls the page by the first Send.
      demoReady().catch(() => {});
    }
    if (endpoint === "custom") {
      this.url.focus();
      this.url.select();
    }
    this.showEndpointNote();
    this.checkTimeout();
    this.refreshBudget();
    this.onChange();
  }

  /** The reader typed a URL: the endpoint menu says which it is. */
  private followUrl(): void {
    const endpoint = endpointOf(this.url.value.trim(), location.href);
    if (this.endpoint.value !== endpoint) this.endpoint.value = endpoint;
    this.showEndpointNote();
  }

  private showEndpointNote(): void {
    const key = `live.endpointNote.${this.endpoint.value as Endpoint}` as const;
    this.endpointNote.textContent = this.t(key);
  }

  /** Sets the status line to `words`, worded now and again on a language switch. */
  private say(words: () => string, refusal = false): void {
    this.statusWords = words;
    this.status.textContent = words();
    this.inputRefused = refusal;
  }

  relabel(t: T, lang: Lang): void {
    this.t = t;
    this.lang = lang;
    this.refreshPolicy();
    this.checkTimeout();
    this.showEndpointNote();
    this.status.textContent = this.statusWords();
    // The attempts shown so far, in the new language.
    if (this.drawn.length > 0) {
      this.log.replaceChildren(...this.drawn.map((d) => this.attemptItem(d)));
      this.layoutStrip();
    }
  }

  refreshPolicy(): void {
    this.policyText.textContent = this.t("live.policy", { policy: this.current().description });
    this.refreshBudget();
  }

  /** The call Send would make now. */
  call(): LiveCall {
    const method = this.method.value;
    const typed = this.url.value.trim();
    let url = typed;
    try {
      url = new URL(typed, location.href).href;
    } catch {
      // shown as typed; fetch will say what is wrong with it
    }
    const timeout = parseTimeout(this.timeout.value, this.timeout.validity.badInput);
    const delay = parseTimeout(this.hedgeDelay.value, this.hedgeDelay.validity.badInput);
    // A value the package refuses goes nowhere (its box says why): not into the embed snippet.
    const taken = (p: ParsedTimeout, option: LiveOption): number | null => (p.ok && p.ms !== null && !outOfLimit(option, p.ms) ? p.ms : null);
    const delayMs = taken(delay, "hedging.delayMs");
    const maxAttempts = Math.min(HEDGE_MAX.max, Math.max(HEDGE_MAX.min, this.current().policy.maxAttempts));
    return {
      breaker: this.breaker.checked,
      hedging: this.hedging.checked && delayMs !== null ? { delayMs, maxAttempts } : null,
      url,
      method,
      headers: parseHeaders(this.headers.value).headers,
      idempotent: this.idempotent.checked,
      attemptTimeoutMs: taken(timeout, "attemptTimeoutMs"),
      callSite: callSiteFor(method, typed, location.href),
      demo: this.endpoint.value === "demo",
    };
  }

  /** The budget line: the settings every Send passes, and the tokens the last call left. */
  private refreshBudget(): void {
    const { budget } = this.current();
    let text: string;
    if (!budget) {
      text = this.t("live.noBudget");
    } else {
      const site = this.call().callSite;
      text = this.t("live.budgetLine", {
        site,
        capacity: formatNumber(budget.capacity, this.lang, 2),
        refill: formatNumber(budget.refillPerSec, this.lang, 2),
      });
      if (this.lastTokens && this.lastTokens.site === site) {
        text += ` ${this.t("live.budgetLeft", { n: formatNumber(this.lastTokens.n, this.lang, 2), count: this.lastTokens.n })}`;
      }
    }
    if (this.budgetText.textContent !== text) this.budgetText.textContent = text;
  }

  /** The timeout box: a number or empty; anything else is flagged next to it. So is the hedging delay, when hedging is on. */
  private checkTimeout(): void {
    // The range as the package declares it, worded as its refusal at Send would be.
    const range = (p: ParsedTimeout, option: LiveOption): string | null => {
      const e = p.ok && p.ms !== null ? outOfLimit(option, p.ms) : null;
      return e ? localizeError(e, this.lang) : null;
    };
    const parsed = parseTimeout(this.timeout.value, this.timeout.validity.badInput);
    this.showTimeoutProblem(parsed.ok ? range(parsed, "attemptTimeoutMs") : this.t("err.nan"));
    const delay = parseTimeout(this.hedgeDelay.value, this.hedgeDelay.validity.badInput);
    const problem = !this.hedging.checked
      ? null
      : !delay.ok
        ? this.t("err.nan")
        : delay.ms === null
          ? this.t("err.empty")
          : range(delay, "hedging.delayMs");
    this.showHedgeProblem(problem);
  }

  private showHedgeProblem(text: string | null): void {
    this.hedgeProblem = text;
    this.hedgeError.textContent = text ?? "";
    this.hedgeError.hidden = text === null;
    if (text) this.hedgeDelay.setAttribute("aria-invalid", "true");
    else this.hedgeDelay.removeAttribute("aria-invalid");
  }

  private showTimeoutProblem(text: string | null): void {
    this.timeoutProblem = text;
    this.timeoutError.textContent = text ?? "";
    this.timeoutError.hidden = text === null;
    if (text) this.timeout.setAttribute("aria-invalid", "true");
    else this.timeout.removeAttribute("aria-invalid");
  }

  /** Empties what the last call showed: its attempts, their strip and its body. */
  private clearCall(): void {
    this.log.replaceChildren();
    this.strip.replaceChildren();
    this.body.textContent = "";
    this.drawn = [];
    this.waits = [];
  }

  private async run(): Promise<void> {
    if (this.controller || !this.ready) return;
    const { headers, bad } = parseHeaders(this.headers.value);
    if (bad.length > 0) {
      // The noun is plural for a list of lines, whatever number ends it (Russian's rules put 21
      // with 1): one line or more than one.
      this.say(() => this.t("live.badHeaders", { lines: bad.join(", "), count: Math.min(bad.length, 2) }), true);
      return;
    }
    this.checkTimeout();
    if (this.timeoutProblem || this.hedgeProblem) {
      // The field says what is wrong; a status from an earlier refusal ("Line 1 is not
      // 'Name: value'") would read as this one's (a finished call's status stays).
      if (this.inputRefused) this.say(() => "");
      (this.timeoutProblem ? this.timeout : this.hedgeDelay).focus();
      return;
    }
    // The last call spent the flaky endpoint's key: this one starts over with a fresh one.
    if (this.spent !== null) this.renewKey(this.spent);
    this.spent = null;
    const url = this.url.value.trim();
    if (!fetchable(url, location.href)) {
      // fetch would fail at once, and retryFetch would retry that as a refused connection.
      // The last call's attempts go: beside this status they would read as this URL's.
      this.clearCall();
      this.say(() => (url === "" ? this.t("live.emptyUrl") : this.t("live.badUrl", { url: clipText(url, 60) })), true);
      this.url.setAttribute("aria-invalid", "true");
      this.url.focus();
      return;
    }
    this.url.removeAttribute("aria-invalid");
    const { policy, budget } = this.current();
    const call = this.call();
    const method = call.method;
    const timeoutMs = call.attemptTimeoutMs;
    const controller = new AbortController();
    this.controller = controller;
    // A disabled button loses the focus to the page's body, and a screen reader its place:
    // the focus goes to Cancel while the call runs, and back to Send after.
    const hadFocus = document.activeElement === this.send;
    this.cancel.disabled = false;
    if (hadFocus) this.cancel.focus();
    this.send.disabled = true;
    this.clearCall();
    this.say(() => this.t("live.sending"));
    this.started = Date.now();
    let attempts = 0;
    let stopKeepAlive = () => {};
    try {
      if (endpointOf(url, location.href) === "demo") {
        // The Service Worker must control the page, or the call would reach the static host.
        await untilAborted(demoReady(), controller.signal);
        stopKeepAlive = keepDemoAlive();
      }
      const res = await retryFetch(
        url,
        { method, headers },
        {
          policy,
          idempotent: call.idempotent,
          signal: controller.signal,
          ...(timeoutMs === null ? {} : { attemptTimeoutMs: timeoutMs }),
          // The settings go with every call: a changed capacity or refill reconfigures the bucket.
          // The breaker lives under the call site too, so that it remembers past Sends.
          ...(budget || call.breaker ? { callSite: call.callSite } : {}),
          ...(budget ? { budget } : {}),
          ...(call.breaker ? { breaker: {} } : {}),
          ...(call.hedging ? { hedging: call.hedging } : {}),
          onAttempt: (a) => {
            attempts++;
            if (a.budgetTokens !== undefined) this.lastTokens = { site: call.callSite, n: a.budgetTokens };
            this.addAttempt(a);
            this.refreshBudget();
          },
        },
      );
      const { text, cut } = method === "HEAD" ? { text: "", cut: false } : await readBody(res, BODY_LIMIT, controller.signal, BODY_MS);
      this.body.textContent = cut ? `${text}…` : text;
      const took = Date.now() - this.started;
      const line = `${res.status} ${res.statusText}`.trim();
      const n = attempts;
      this.say(() => this.t("live.done", { status: line, n, t: formatDuration(took, this.lang) }));
    } catch (e) {
      const name = e instanceof Error || e instanceof DOMException ? e.name : "";
      const reason = (e as { reason?: unknown } | null)?.reason;
      if (e instanceof DemoUnavailable) {
        this.say(() => this.t("live.demoUnavailable", { reason: this.t(`live.demoWhy.${e.problem}`) }));
      } else if (controller.signal.aborted || name === "AbortError") {
        this.say(() => this.t("live.cancelled"));
      } else if (name === "RetryError") {
        // A browser's fetch fails the same way on a refused port, an unreachable host and an
        // answer without CORS headers: on another origin, all three read as "connect".
        const last = (e as { attempts?: { error?: unknown }[] }).attempts?.at(-1)?.error;
        const hint = last === "connect" && crossOrigin(call.url);
        this.say(() => this.t("live.gaveUp", { n: attempts, reason: typeof reason === "string" ? localizeReason(reason, this.lang) : String(reason ?? errorMessage(e)) }) + (hint ? ` ${this.t("live.corsHint")}` : ""));
      } else if (name === "BudgetExhaustedError") {
        const tokens = (e as { tokens?: unknown }).tokens;
        if (typeof tokens === "number") this.lastTokens = { site: call.callSite, n: tokens };
        this.refreshBudget();
        this.say(() => this.t("live.budget", { reason: this.refusal(e) }));
      } else if (name === "CircuitOpenError") {
        this.say(() => this.t("live.breakerOpen", { reason: this.refusal(e) }));
      } else if (name === "ThrottledError") {
        this.say(() => this.t("live.throttled", { reason: this.refusal(e) }));
      } else if (errorData(e).field?.startsWith("hedging.")) {
        this.showHedgeProblem(localizeError(errorData(e), this.lang));
        this.say(() => "");
      } else if (errorData(e).field === "attemptTimeoutMs") {
        // The package refused the timeout: say so next to the field.
        this.showTimeoutProblem(localizeError(errorData(e), this.lang));
        this.say(() => "");
      } else {
        this.say(() => this.t("live.failed", { message: localizeError(errorData(e), this.lang) }));
      }
    } finally {
      stopKeepAlive();
      this.controller = null;
      this.send.disabled = !this.ready;
      const onCancel = document.activeElement === this.cancel;
      if (onCancel && !this.send.disabled) this.send.focus();
      this.cancel.disabled = true;
      // Only once the endpoint has counted a request for this key. The box keeps the URL
      // just called (the body shown is its answer) until the next Send renews it.
      if (attempts > 0) this.spent = url;
    }
  }

  /** Before the Send after a call to the flaky endpoint with this key (the server's or the
   *  demo's, as the panel offers them), the URL box gets a fresh key, so the call starts over
   *  (with one key per visit, a second Send got 200 at once). A URL the reader typed or
   *  changed is left as it is. */
  private renewKey(called: string): void {
    const offered = [defaultLiveUrl(this.key), demoLiveUrl(this.key)];
    if (!offered.includes(called)) return;
    // The key is spent whatever the box holds now: an endpoint picked later offers a fresh
    // one (a key kept while a custom URL was tried came back, and answered 200 at once).
    this.key = randomKey();
    if (this.url.value.trim() !== called) return;
    this.url.value = called === offered[0] ? defaultLiveUrl(this.key) : demoLiveUrl(this.key);
    this.onChange();
  }

  /** A net's refusal (budget, breaker, throttle) in the page's language: its call site, then the net's reason. */
  private refusal(e: unknown): string {
    const message = errorMessage(e);
    const { callSite, reason } = e as { callSite?: unknown; reason?: unknown };
    const site = typeof callSite === "string" ? `${callSite}: ` : "";
    // A BudgetExhaustedError has no `reason`: its message is the call site and the reason.
    const why = typeof reason === "string" ? reason : message.startsWith(site) ? message.slice(site.length) : null;
    return why === null ? message : site + localizeReason(why, this.lang);
  }

  private addAttempt(a: Attempt): void {
    const answered = Date.now() - this.started;
    const sent = Math.max(0, a.startedMs - this.started);
    const d: Drawn = { info: a, sent, answered };
    this.drawn.push(d);
    if (a.decision === "retry" && a.delayMs !== undefined) this.waits.push({ from: answered, to: answered + a.delayMs });
    this.log.append(this.attemptItem(d));
    this.layoutStrip();
  }

  /** An attempt's line in the log, in the page's language. */
  private attemptItem({ info: a, sent }: Drawn): HTMLLIElement {
    const kind = a.status !== undefined ? String(a.status) : (a.error ?? "error");
    const li = document.createElement("li");
    li.dataset["status"] = kind;
    li.className = `attempt ${a.decision} ${statusClass(a)}`;
    if (a.hedge) li.dataset["hedge"] = "true";
    if (a.won) li.dataset["won"] = "true";
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
    if (a.hedge || a.won) {
      const mark = document.createElement("span");
      mark.className = "a-hedge";
      mark.textContent = [a.hedge ? this.t("live.hedge") : "", a.won ? this.t("live.won") : ""].filter((x) => x).join(" · ");
      head.append(mark);
    }
    const reason = document.createElement("span");
    reason.className = "a-reason";
    // The core's sentence, in the page's language (see logic/reasons.ts).
    reason.textContent = localizeReason(a.reason, this.lang, a);
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
      tokens.textContent = this.t("live.tokens", { n: formatNumber(a.budgetTokens, this.lang, 2), count: a.budgetTokens });
      li.append(tokens);
    }
    return li;
  }

  /**
   * Redraws the strip: each attempt a bar (sent → answered), each wait a dashed span;
   * attempts out at the same time (hedges) stack in rows of their own.
   */
  private layoutStrip(): void {
    const rows = stripRows(this.drawn);
    const count = Math.max(1, ...rows.map((r) => r + 1));
    this.strip.style.height = count > 1 ? `${(2.2 + 1.4 * (count - 1)).toFixed(1)}rem` : "";
    // A little room on the right for the last bar and the scale's label.
    const last = Math.max(1, ...this.drawn.map((d) => d.answered), ...this.waits.map((w) => w.to));
    const end = 1.04 * last;
    const pct = (ms: number) => `${((100 * ms) / end).toFixed(2)}%`;
    const nodes: HTMLElement[] = [];
    for (const w of this.waits) {
      const span = document.createElement("span");
      span.className = "strip-wait";
      span.style.left = pct(w.from);
      span.style.width = pct(w.to - w.from);
      nodes.push(span);
    }
    this.drawn.forEach((d, i) => {
      const bar = document.createElement("span");
      bar.className = `strip-attempt ${statusClass(d.info)}${d.info.hedge ? " hedge" : ""}${d.info.won ? " won" : ""}`;
      const row = rows[i] ?? 0;
      if (row > 0) bar.style.top = `${(0.55 + 1.4 * row).toFixed(2)}rem`;
      bar.style.left = pct(d.sent);
      bar.style.width = `max(6px, ${pct(d.answered - d.sent)})`;
      bar.title = `#${d.info.number} ${d.info.status ?? d.info.error ?? ""}`;
      nodes.push(bar);
    });
    const scale = document.createElement("span");
    scale.className = "strip-end";
    // The last answer's time, under it (the strip's padded edge read 6.28 s beside a status
    // of "in 6.04 s").
    scale.textContent = formatDuration(last, this.lang);
    scale.style.right = pct(end - last);
    nodes.push(scale);
    this.strip.replaceChildren(...nodes);
  }
}

function statusClass(a: Attempt): string {
  if (a.decision === "success") return "ok";
  if (a.status !== undefined && a.status < 400) return "ok";
  // "wait": a hedged call's attempt that failed while others may still answer.
  return a.decision === "retry" || a.decision === "wait" ? "retrying" : "stopped";
}

/** Whether `url` is on another origin than the page (false for one that does not parse). */
function crossOrigin(url: string): boolean {
  try {
    return new URL(url, location.href).origin !== location.origin;
  } catch {
    return false;
  }
}
