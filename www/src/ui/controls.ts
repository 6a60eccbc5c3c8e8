// The settings form: built from the field table (logic/fields.ts), every number a typed
// field kept in sync with its slider, every control labelled. It reads the form into a
// draft state and reports what it could not read; the app decides what to run.

import {
  ADVANCED_FIELDS,
  BUDGET_FIELDS,
  MAX_STEADY_REQUESTS,
  POLICY_A_FIELDS,
  POLICY_B_FIELDS,
  SCENARIO_FIELDS,
  SERVER_FIELDS,
  SLIDER_STEPS,
  fromSlider,
  isRated,
  keyValue,
  parseField,
  steadyRequests,
  toSlider,
  valueText,
  visibleFor,
  withinPeers,
  type FieldProblem,
  type NumberField,
} from "../logic/fields.js";
import { localizeError, type FieldError } from "../logic/errors.js";
import { byPeers, coreRangeError } from "../logic/core-range.js";
import { simOptions } from "../logic/run.js";
import { formatDuration, formatNumber } from "../logic/format.js";
import type { Key } from "../logic/i18n.js";
import {
  BALANCES,
  BUDGET_SCOPES,
  DEFAULT_STATE,
  LATENCY_DISTS,
  QUEUE_ORDERS,
  SCENARIOS,
  SERVICE_DISTS,
  STRATEGIES,
  cloneState,
  hasServer,
  isBalance,
  isBudgetScope,
  isLatencyDist,
  isQueueOrder,
  isScenario,
  isServiceDist,
  isStrategy,
  type Lang,
  type Sizing,
  type State,
} from "../logic/state.js";
import { fleetText, type FleetView } from "./fleet.js";
import type { T } from "./i18n-dom.js";
import { TYPING_PAUSE_MS } from "./typed-field.js";
import { byId, setAttr, setHidden, setText } from "./dom.js";

interface FieldEls {
  f: NumberField;
  wrap: HTMLElement;
  num: HTMLInputElement;
  range: HTMLInputElement;
  readout: HTMLElement;
  unit: HTMLElement;
}

/** Whether the number box's `text` holds the value `v` ("6", "6.0" and " 6" hold 6). */
function holds(text: string, v: number): boolean {
  return text.trim() !== "" && Number(text) === v;
}

/** A package error placed at its control (see logic/errors.ts). */
export type PackageError = FieldError;

/** What is wrong with a field: its own text, the page's bound on a steady run, or a value past
 *  the package's range for it (found without running, while another field blocks the run). */
type Problem = FieldProblem | { kind: "steady"; n: number } | { kind: "core"; error: PackageError };

const SELECTS = [
  "scenario",
  "strategy",
  "b-strategy",
  "budget-scope",
  "queue-order",
  "service-dist",
  "balance",
  "latency-dist",
] as const;
type SelectId = (typeof SELECTS)[number];
const CHECKS = ["budget", "b-budget"] as const;
type CheckId = (typeof CHECKS)[number];

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}): HTMLElementTagNameMap[K] {
  return Object.assign(document.createElement(tag), props);
}

export class Controls {
  private readonly fields = new Map<string, FieldEls>();
  private readonly selects = new Map<SelectId, HTMLSelectElement>();
  private readonly checks = new Map<CheckId, HTMLInputElement>();
  private readonly errors = new Map<string, HTMLElement>();
  private problems = new Map<string, Problem>();
  /** Notes beside a field that are not problems with it (a link's value it replaced). */
  private readonly notices = new Map<string, (t: T, lang: Lang) => string>();
  private lastEdited = "";
  /** Which fields size the servers: the capacity, or the workers and queue (the last edited leads). */
  private sizing: Sizing = "capacity";
  /** The servers of the picture on show, for the line under the Server group. */
  private fleet: FleetView | null = null;
  private readonly fleetLine: HTMLElement;
  private t: T;
  /** Whether no budget is ticked (see refreshIdle). */
  private idle = false;
  private lang: Lang;

  constructor(t: T, lang: Lang, private readonly onEdit: (id: string) => void) {
    this.t = t;
    this.lang = lang;
    const scenario = byId("group-scenario");
    scenario.append(this.select("scenario", SCENARIOS, (v) => `scenario.${v}` as Key));
    const occNote = el("p", { className: "note", id: "occ-note" });
    occNote.dataset["i18n"] = "scenario.occNote";
    scenario.append(occNote);
    for (const f of SCENARIO_FIELDS) scenario.append(this.numberField(f));

    // The Server group: what most pictures need in view, the rest folded away.
    const server = byId("group-server");
    for (const f of SERVER_FIELDS.slice(0, 3)) server.append(this.numberField(f));
    const pair = el("div", { className: "field-pair" });
    pair.append(
      this.select("queue-order", QUEUE_ORDERS, (v) => `order.${v}` as Key),
      this.select("service-dist", SERVICE_DISTS, (v) => `dist.${v}` as Key),
    );
    server.append(pair);
    for (const f of SERVER_FIELDS.slice(3)) server.append(this.numberField(f));
    this.fleetLine = el("p", { className: "note fleet-line", id: "fleet-line" });
    server.append(this.fleetLine);
    const more = el("details", { className: "advanced", id: "server-advanced" });
    const summary = el("summary");
    summary.dataset["i18n"] = "group.advanced";
    more.append(summary);
    const pair2 = el("div", { className: "field-pair" });
    pair2.append(
      this.select("balance", BALANCES, (v) => `balance.${v}` as Key),
      this.select("latency-dist", LATENCY_DISTS, (v) => `latencyDist.${v}` as Key),
    );
    more.append(pair2);
    for (const f of ADVANCED_FIELDS) more.append(this.numberField(f));
    server.append(more);

    const policy = byId("group-policy");
    policy.append(this.select("strategy", STRATEGIES, (v) => `strategy.${v}` as Key));
    for (const f of POLICY_A_FIELDS) policy.append(this.numberField(f));

    const budget = byId("group-budget");
    budget.append(this.check("budget"));
    budget.append(this.select("budget-scope", BUDGET_SCOPES, (v) => `scope.${v}` as Key));
    for (const f of BUDGET_FIELDS) budget.append(this.numberField(f));

    const b = byId("group-b");
    b.append(this.select("b-strategy", STRATEGIES, (v) => `strategy.${v}` as Key));
    for (const f of POLICY_B_FIELDS) b.append(this.numberField(f));
    b.append(this.check("b-budget"));
  }

  // --- Building ------------------------------------------------------------------------------

  private errorSpan(id: string): HTMLElement {
    const span = el("span", { className: "field-error", id: `${id}-error`, hidden: true });
    span.setAttribute("role", "alert");
    span.dataset["errorFor"] = id;
    this.errors.set(id, span);
    return span;
  }

  private numberField(f: NumberField): HTMLElement {
    const wrap = el("div", { className: "field" });
    wrap.dataset["field"] = f.id;
    const label = el("label", { htmlFor: f.id });
    label.dataset["i18n"] = `field.${f.id}`;
    const readout = el("span", { className: "readout", id: `${f.id}-readout` });
    readout.setAttribute("aria-hidden", "true");
    const head = el("div", { className: "field-head" });
    head.append(label, readout);

    const range = el("input", { type: "range", id: `${f.id}-range`, min: "0", max: String(SLIDER_STEPS), step: "1" });
    const num = el("input", { type: "number", id: f.id, step: "any" });
    num.inputMode = f.integer ? "numeric" : "decimal";
    num.setAttribute("aria-describedby", `${f.id}-error`);
    const unit = el("span", { className: "unit" });
    unit.dataset["i18n"] = `unit.${f.unit}`;
    const row = el("div", { className: "field-row" });
    row.append(range, num, unit);
    wrap.append(head, row, this.errorSpan(f.id));

    const e: FieldEls = { f, wrap, num, range, readout, unit };
    // A drag over positions that stand for the same value (a log track's friendly values
    // are a few positions wide) moves the thumb only: each used to run the simulation again.
    range.addEventListener("input", () => this.slid(e, this.withinPeers(f, fromSlider(f, Number(range.value)))));
    // A drag past a bounding field's value (the cap below the base) ends with the thumb at the
    // value it stopped at, not where the pointer let go.
    range.addEventListener("change", () => {
      const at = String(toSlider(f, this.valueOf(e)));
      if (range.value !== at) range.value = at;
    });
    // The slider's keys step the field (see keyValue in logic/fields.ts), not the track:
    // the browser's own step is 1/SLIDER_STEPS of it. Shortcuts with a modifier stay the browser's.
    range.addEventListener("keydown", (ev) => {
      if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
      const stepped = keyValue(f, this.valueOf(e), ev.key);
      if (stepped === null) return;
      const v = this.withinPeers(f, stepped);
      ev.preventDefault();
      range.value = String(toSlider(f, v));
      this.slid(e, v);
    });
    // Typed text counts once the typing pauses (or on Enter, or when the field is left): each
    // keystroke ran the value so far, so typing 999999 ran 9, 99 … 99999 clients on the way,
    // and 101 attempts (refused) left the picture and the link at 10. A step of the
    // spinner or an arrow key (an input with no text typed) counts at once.
    let typing = 0;
    const settle = () => {
      if (typing === 0) return;
      window.clearTimeout(typing);
      typing = 0;
      this.edited(f.id);
    };
    num.addEventListener("input", (ev) => {
      window.clearTimeout(typing);
      typing = 0;
      if (ev instanceof InputEvent && ev.inputType) typing = window.setTimeout(settle, TYPING_PAUSE_MS);
      else this.edited(f.id);
    });
    num.addEventListener("change", settle);
    this.fields.set(f.id, e);
    return wrap;
  }

  /** `v` held within the fields that bound `f`'s slider (`within`), those of them shown. */
  private withinPeers(f: NumberField, v: number): number {
    return withinPeers(f, v, (id) => this.peerValue(id));
  }

  /** A bounding field's value, while it is shown; a peer holding a value of its own problem
   *  (servers 1.5) bounds nothing. */
  private peerValue(id: string): number | undefined {
    const p = this.fields.get(id);
    return p && !p.wrap.hidden && !p.wrap.closest("[hidden]") && !this.problems.has(id) ? this.valueOf(p) : undefined;
  }

  /** The package's refusal of a value past its field's own range, in the range its peers
   *  leave (see `byPeers`). */
  private byPeers(id: string, e: PackageError): PackageError {
    const f = this.fields.get(id)?.f;
    return f ? byPeers(e, f, (peer) => this.peerValue(peer)) : e;
  }

  /** The value field `e` holds now: its number box's, or while that holds no number, its slider's. */
  private valueOf(e: FieldEls): number {
    const v = Number(e.num.value);
    return e.num.value.trim() !== "" && !e.num.validity.badInput && Number.isFinite(v) ? v : fromSlider(e.f, Number(e.range.value));
  }

  /**
   * The slider gave field `e` the value `v`: the number box and the value text follow at once
   * (a screen reader reads the text as the thumb moves), and a new value counts. The value the
   * number box holds already is no edit: it ran nothing new, and made no field lead the
   * servers' sizing. (Typed text counts even so: typing the workers' own number is how a
   * reader makes them lead.)
   */
  private slid(e: FieldEls, v: number): void {
    if (holds(e.num.value, v) && !e.num.validity.badInput) return;
    e.num.value = String(v);
    this.setValueText(e, v);
    this.edited(e.f.id);
  }

  private setValueText(e: FieldEls, v: number): void {
    setAttr(e.range, "aria-valuetext", valueText(e.f, v, this.lang));
  }

  private select<V extends string>(id: SelectId, values: readonly V[], key: (v: V) => Key): HTMLElement {
    const wrap = el("div", { className: "field" });
    wrap.dataset["field"] = id;
    const label = el("label", { htmlFor: id });
    label.dataset["i18n"] = `field.${id}`;
    const sel = el("select", { id });
    sel.setAttribute("aria-describedby", `${id}-error`);
    for (const v of values) {
      const o = el("option", { value: v });
      o.dataset["i18n"] = key(v);
      sel.append(o);
    }
    sel.addEventListener("change", () => this.edited(id));
    wrap.append(label, sel, this.errorSpan(id));
    this.selects.set(id, sel);
    return wrap;
  }

  private check(id: CheckId): HTMLElement {
    const wrap = el("div", { className: "field check" });
    wrap.dataset["field"] = id;
    const box = el("input", { type: "checkbox", id });
    const label = el("label", { htmlFor: id });
    label.dataset["i18n"] = `field.${id}`;
    box.addEventListener("change", () => this.edited(id));
    wrap.append(box, label);
    this.checks.set(id, box);
    return wrap;
  }

  private edited(id: string): void {
    this.lastEdited = id;
    // The field edited last sizes the servers.
    if (id === "capacity") this.sizing = "capacity";
    else if (id === "workers" || id === "queue") this.sizing = "workers";
    this.notices.delete(id);
    this.onEdit(id);
  }

  /** Disables every settings control (fieldsets) until something can run them. */
  setEnabled(on: boolean): void {
    for (const fs of document.querySelectorAll<HTMLFieldSetElement>("form.controls fieldset")) fs.disabled = !on;
  }

  /** A note beside field `id` (shown when it has no problem of its own), or none. */
  setNotice(id: string, note: ((t: T, lang: Lang) => string) | null): void {
    if (note) this.notices.set(id, note);
    else this.notices.delete(id);
  }

  clearNotices(): void {
    this.notices.clear();
  }

  // --- Showing a state ------------------------------------------------------------------------

  /** Writes `s` into every control and forgets every typed problem. */
  show(s: State): void {
    for (const { f, num, range } of this.fields.values()) {
      const v = f.get(s);
      num.value = String(v);
      range.value = String(toSlider(f, v));
    }
    this.sel("scenario").value = s.scenario;
    this.sel("strategy").value = s.a.strategy;
    this.sel("b-strategy").value = s.b.strategy;
    this.sel("budget-scope").value = s.budgetScope;
    this.sel("queue-order").value = s.queueOrder;
    this.sel("service-dist").value = s.serviceDist;
    this.sel("balance").value = s.balance;
    this.sel("latency-dist").value = s.latencyDist;
    this.sizing = s.sizing;
    this.box("budget").checked = s.a.budget;
    this.box("b-budget").checked = s.b.budget;
    this.problems.clear();
    this.refreshLayout(s);
    // A link or a story that sets a folded server setting opens the fold: the reader sees why
    // the picture differs. (Never closed here: the reader may have opened it.)
    const more = document.getElementById("server-advanced");
    const d = DEFAULT_STATE;
    const folded =
      ADVANCED_FIELDS.some((f) => visibleFor(f, s.scenario, s) && f.get(s) !== f.get(d)) ||
      (hasServer(s.scenario) && (s.balance !== d.balance || s.latencyDist !== d.latencyDist));
    if (more instanceof HTMLDetailsElement && folded && !more.open) more.open = true;
  }

  private sel(id: SelectId): HTMLSelectElement {
    const s = this.selects.get(id);
    if (!s) throw new Error(id);
    return s;
  }
  private box(id: CheckId): HTMLInputElement {
    const b = this.checks.get(id);
    if (!b) throw new Error(id);
    return b;
  }

  /** Shows only the fields the scenario uses; updates readouts. */
  private refreshLayout(s: State): void {
    for (const { f, wrap } of this.fields.values()) setHidden(wrap, !visibleFor(f, s.scenario, s));
    this.idle = !s.a.budget && !s.b.budget;
    this.refreshIdle();
    const note = document.getElementById("occ-note");
    if (note) setHidden(note, s.scenario !== "aws-occ");
    setHidden(byId("group-server"), !hasServer(s.scenario));
    // aws-occ's clients retry until their write wins: no budget (nor an attempt limit, whose
    // fields say so in fields.ts).
    setHidden(byId("group-budget"), !hasServer(s.scenario));
    const bBudget = this.box("b-budget").closest<HTMLElement>(".field");
    if (bBudget) setHidden(bBudget, !hasServer(s.scenario));
    this.refreshReadouts(s);
  }

  /**
   * The servers of the run on show: what the core sized from the capacity goes into the
   * workers and queue fields (or the capacity that follows from them into its field), and
   * the line under the group says what ran. `s` is the state that ran, its fleet adopted.
   */
  showFleet(fleet: FleetView, s: State): void {
    this.fleet = fleet;
    // A field the reader now leads with is theirs: a run from before the change does not write it.
    if (s.sizing === this.sizing) {
      const ids = this.sizing === "capacity" ? ["workers", "queue"] : ["capacity"];
      for (const id of ids) {
        const e = this.fields.get(id);
        if (!e || this.problems.has(id)) continue;
        const v = e.f.get(s);
        if (Number(e.num.value) !== v) e.num.value = String(v);
        e.range.value = String(toSlider(e.f, v));
      }
      this.refreshReadouts(s);
    }
    this.renderFleet();
  }

  private renderFleet(): void {
    const text = this.fleet ? fleetText(this.fleet, this.sizing, this.t, this.lang) : "";
    setText(this.fleetLine, text);
  }

  /** The readouts beside the sliders, and the sliders' value texts: from the state, so a
   *  preset, a link, a run's fleet and a language switch all reach them. */
  private refreshReadouts(s: State): void {
    for (const e of this.fields.values()) {
      const { f, readout } = e;
      const v = f.get(s);
      this.setValueText(e, v);
      setText(
        readout,
        v === f.none
          ? this.t(f.noneKey ?? "field.none")
          : f.unit === "ms"
            ? `${formatDuration(v, this.lang)}`
            : f.unit === "clients"
              ? formatNumber(v, this.lang)
              : "",
      );
    }
  }

  // --- Reading ---------------------------------------------------------------------------------

  /** The form as a state (starting from `base` for anything unreadable) and what was refused. */
  read(base: State): { state: State; ok: boolean } {
    const s = cloneState(base);
    const scenario = this.sel("scenario").value;
    if (isScenario(scenario)) s.scenario = scenario;
    const a = this.sel("strategy").value;
    if (isStrategy(a)) s.a.strategy = a;
    const b = this.sel("b-strategy").value;
    if (isStrategy(b)) s.b.strategy = b;
    const scope = this.sel("budget-scope").value;
    if (isBudgetScope(scope)) s.budgetScope = scope;
    const order = this.sel("queue-order").value;
    if (isQueueOrder(order)) s.queueOrder = order;
    const dist = this.sel("service-dist").value;
    if (isServiceDist(dist)) s.serviceDist = dist;
    const balance = this.sel("balance").value;
    if (isBalance(balance)) s.balance = balance;
    const latencyDist = this.sel("latency-dist").value;
    if (isLatencyDist(latencyDist)) s.latencyDist = latencyDist;
    s.sizing = this.sizing;
    s.a.budget = this.box("budget").checked;
    s.b.budget = this.box("b-budget").checked;

    this.problems.clear();
    const typed = new Map<string, number>();
    for (const { f, num, range } of this.fields.values()) {
      const parsed = parseField(f, num.value, num.validity.badInput, s.scenario);
      if (parsed.ok) {
        typed.set(f.id, parsed.value);
        f.set(s, parsed.value);
        // A typed value moves its slider (the slider's own moves already match).
        if (document.activeElement !== range) range.value = String(toSlider(f, parsed.value));
      } else if (visibleFor(f, s.scenario, s)) {
        this.problems.set(f.id, parsed.problem);
      }
    }
    // The page's own bound on a steady run's requests, for values in their fields' ranges: a
    // value past its range (a spike factor of 1e308, which made the requests "—") is the
    // core's to name, and a field's own problem is not overwritten.
    const requests = steadyRequests(s);
    if (isRated(s.scenario) && Number.isFinite(requests) && requests > MAX_STEADY_REQUESTS) {
      const at = ["clients", "rate", "duration", "spike-length", "spike-factor"].includes(this.lastEdited) ? this.lastEdited : "rate";
      if (!this.problems.has(at)) this.problems.set(at, { kind: "steady", n: Math.round(requests) });
    }
    // With a field's own problem nothing runs, so the package judges no other field: a value
    // past its range there got no word (Clients 0, then a base of -5: the base said nothing
    // until the clients were mended). The package's own words for it, from its ranges.
    if (this.problems.size > 0) this.flagCoreRanges(s, typed);
    this.refreshLayout(s);
    return { state: s, ok: this.problems.size === 0 };
  }

  /** The id of the control edited last ("" before any edit). */
  get lastEdit(): string {
    return this.lastEdited;
  }

  // --- Errors ----------------------------------------------------------------------------------

  /** Flags each shown field whose value (`typed`, by id) is past the package's range for its
   *  option, as the package would refuse it. */
  private flagCoreRanges(s: State, typed: ReadonlyMap<string, number>): void {
    // Only what a run would send, as the run builds it (a timeout of 0 is none, not sent; a
    // fleet sized by capacity sends no workers): the package judges nothing else.
    const sent = { a: simOptions(s, "a"), b: simOptions(s, "b") };
    for (const [id, v] of typed) {
      const e = this.fields.get(id);
      if (!e || this.problems.has(id) || !visibleFor(e.f, s.scenario, s)) continue;
      const error = coreRangeError(id, v, sent[e.f.side ?? "a"]);
      if (error) this.problems.set(id, { kind: "core", error });
    }
  }

  private problemText(p: Problem): string {
    switch (p.kind) {
      case "core":
        return localizeError(p.error.control === null ? p.error : this.byPeers(p.error.control, p.error), this.lang);
      case "empty":
        return this.t("err.empty");
      case "nan":
        return this.t("err.nan");
      case "integer":
        return this.t("err.integer");
      case "range":
        return this.t("err.range", { min: formatNumber(p.min, this.lang, 6), max: formatNumber(p.max, this.lang, 6) });
      case "steady":
        return this.t("err.steady", { max: formatNumber(MAX_STEADY_REQUESTS, this.lang), n: formatNumber(p.n, this.lang) });
    }
  }

  /**
   * Shows each field's own problem, and each package error next to the control it names.
   * Returns the package errors that found no visible control (the caller shows those).
   */
  renderErrors(pkg: readonly PackageError[]): PackageError[] {
    const placed = new Set<PackageError>();
    for (const [id, span] of this.errors) {
      const own = this.problems.get(id);
      let text = own ? this.problemText(own) : "";
      const theirs = pkg.find((e) => e.control === id);
      // The field's own problem supersedes the package's word on it: that was about a
      // value the field no longer holds (typed -1, then cleared), so it shows nowhere.
      if (own && theirs) placed.add(theirs);
      if (!text && theirs && this.isVisible(id)) {
        text = localizeError(this.byPeers(id, theirs), this.lang);
        placed.add(theirs);
      }
      const invalid = text !== "";
      const note = this.notices.get(id);
      if (!text && note) text = note(this.t, this.lang);
      setText(span, text);
      setHidden(span, text === "");
      // A message about a folded setting unfolds it: it must be seen to be fixed.
      const folded = text === "" ? null : span.closest("details");
      if (folded && !folded.open) folded.open = true;
      span.classList.toggle("is-note", !invalid && text !== "");
      const control = document.getElementById(id);
      if (control) {
        if (invalid) control.setAttribute("aria-invalid", "true");
        else control.removeAttribute("aria-invalid");
      }
    }
    return pkg.filter((e) => !placed.has(e));
  }

  private isVisible(id: string): boolean {
    const wrap = document.getElementById(id)?.closest<HTMLElement>(".field");
    return !!wrap && !wrap.hidden;
  }

  hasProblems(): boolean {
    return this.problems.size > 0;
  }

  /** The controls whose value is refused (by the form, or by the package: `pkg`'s controls),
   *  in the form's order (ui/held.ts names them by the figure). */
  refusedIds(pkg: readonly PackageError[]): string[] {
    const theirs = new Set(pkg.map((e) => e.control));
    return [...this.errors.keys()].filter((id) => this.problems.has(id) || (theirs.has(id) && this.isVisible(id)));
  }

  /** Whether a note stands beside field `id` (a link's value it replaced). */
  hasNotice(id: string): boolean {
    return this.notices.has(id) && this.isVisible(id);
  }

  // --- Language ----------------------------------------------------------------------------------

  /** The budget's settings with no budget ticked change nothing: dimmed (still usable, to set
   *  a budget up before ticking it), with the reason in their title, in the page's language. */
  private refreshIdle(): void {
    const wraps = [...BUDGET_FIELDS.map((f) => this.fields.get(f.id)?.wrap), this.sel("budget-scope").closest<HTMLElement>(".field")];
    for (const wrap of wraps) {
      if (!wrap) continue;
      wrap.classList.toggle("idle", this.idle);
      const title = this.idle ? this.t("budget.idle") : "";
      if (wrap.title !== title) wrap.title = title;
    }
  }

  relabel(t: T, lang: Lang, s: State): void {
    this.t = t;
    this.lang = lang;
    this.refreshIdle();
    for (const { f, range } of this.fields.values()) {
      range.setAttribute("aria-label", t("slider.of", { label: t(`field.${f.id}` as Key) }));
    }
    this.refreshReadouts(s);
    this.renderFleet();
  }
}
