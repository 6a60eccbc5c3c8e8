// A shared link's values that the page cannot use. Values the URL codec could not read
// (logic/url.ts) are noted beside their field, the default shown instead. Values only the
// package can refuse (a cap below the base, a negative seed…) surface when the run fails:
// while the page still shows the link's picture and the reader has touched nothing, such a
// field falls back to its default, with a note, and the run goes again, so that a bad link
// still opens with a picture. Once the reader acts, a refusal is theirs to see and fix.

import { localizeError } from "../logic/errors.js";
import { MAX_STEADY_REQUESTS, fieldById, parseField } from "../logic/fields.js";

/** The traffic settings a link gives up together when they make more requests than the page
 *  runs (logic/url.ts). */
const TRAFFIC: ReadonlySet<string> = new Set(["clients", "rate", "duration", "spike-length", "spike-factor"]);
import { clipText, formatNumber } from "../logic/format.js";
import { DEFAULT_STATE, cloneState, type Lang, type Scenario, type State } from "../logic/state.js";
import type { PackageError } from "../ui/controls.js";
import type { T } from "../ui/i18n-dom.js";
import { byId, type View } from "../panels/panel.js";
import { controlName } from "../ui/held.js";

/** A link's repairs stop after this many (a link whose values the package keeps refusing). */
const MAX_REPAIRS = 8;

/** A link's value as a note quotes it: at most 40 characters (a link may hold thousands). */
function quoted(value: string): string {
  return clipText(value, 40);
}

/** The value a too-much-work refusal says fits (its max, or for an "at least" its min),
 *  whole for a whole field; undefined for any other refusal. */
function workBound(err: PackageError, integer: boolean): number | undefined {
  if (err.code !== "too_much_work") return undefined;
  const v = err.max !== undefined ? (integer ? Math.floor(err.max) : err.max) : err.min !== undefined ? Math.ceil(err.min) : undefined;
  return v !== undefined && Number.isFinite(v) && v > 0 ? v : undefined;
}

/** What the link had that the page could not use (see logic/url.ts). */
export interface LinkProblems {
  ignored: string[];
  given: Record<string, string>;
  /** The panels' settings the link had that could not be used, as `key=value`. */
  panels?: string[];
  /** A story the link names that the page does not have (its other settings still apply). */
  unknownStory?: string;
}

/** The form's side of a repair: notes beside fields. */
export interface NoticeBoard {
  setNotice(id: string, note: ((t: T, lang: Lang) => string) | null): void;
  /** Whether the note set for `id` still stands (an edit of the field drops it). */
  hasNotice(id: string): boolean;
}

export class LinkRepair {
  private readonly el = byId("link-note");
  /** Until the reader acts, a refused value came from the link. */
  private active = true;
  private repairs = 0;
  /** The link's own value of each field a repair replaced, for a later repair's note. */
  private readonly given = new Map<string, string>();
  /** Notes about the link that belong to no single field, re-worded on a language switch. */
  private notes: ((t: T, lang: Lang) => string)[] = [];
  /** The fields with a note beside them about the link's value: named in the note at the
   *  top too, since a field may be screens away (a phone's controls run 3,000 px). */
  private readonly beside = new Set<string>();

  constructor(
    private readonly form: NoticeBoard,
    private readonly view: () => Pick<View, "t" | "lang">,
  ) {}

  /** Shows, next to each field, what the link had that could not be used (the default is
   *  shown), with the range the page takes when the value was a number outside it. */
  note(link: LinkProblems, scenario: Scenario): void {
    const general: string[] = [];
    for (const key of link.ignored) {
      const raw = link.given[key] ?? "";
      const value = quoted(raw);
      const span = document.getElementById(`${key}-error`);
      const field = fieldById(key);
      const parsed = field ? parseField(field, raw, false, scenario) : null;
      const range = parsed && !parsed.ok && parsed.problem.kind === "range" ? parsed.problem : null;
      const fraction = parsed !== null && !parsed.ok && parsed.problem.kind === "integer";
      // A traffic value within its range was refused with the others, for the page's bound
      // on a run's requests (url.ts): say that, not "cannot be used".
      const traffic = parsed?.ok === true && TRAFFIC.has(key);
      if (span && !span.closest<HTMLElement>(".field")?.hidden) {
        this.beside.add(key);
        this.form.setNotice(key, (t, lang) =>
          range
            ? t("link.fieldRange", { value, min: formatNumber(range.min, lang, 6), max: formatNumber(range.max, lang, 6) })
            : traffic
              ? t("link.steady", { value, max: formatNumber(MAX_STEADY_REQUESTS, lang) })
              : fraction
                ? t("link.fieldInteger", { value })
                : t("link.field", { value }),
        );
      } else {
        general.push(`${key}=${value}`);
      }
    }
    for (const pair of link.panels ?? []) general.push(quoted(pair));
    const story = link.unknownStory;
    if (story !== undefined) this.notes.push((t) => t("link.story", { value: quoted(story) }));
    if (general.length > 0) {
      const list = general.join(", ");
      this.notes.push((t) => t("link.general", { list }));
    }
    this.render();
  }

  /** Words the notes in the current language. */
  render(): void {
    const { t, lang } = this.view();
    const labels = [...this.beside].filter((id) => this.form.hasNotice(id)).map(controlName);
    const top = labels.length > 0 ? [t("link.beside", { list: labels.join(", ") })] : [];
    const text = [...top, ...this.notes.map((n) => n(t, lang))].join(" ");
    if (this.el.textContent !== text) this.el.textContent = text;
    this.el.hidden = text === "";
  }

  /**
   * The package refused `state` with `err`: while the link is in charge, returns the state
   * to run instead (the named field at its default, or every default), with a note; else null.
   */
  repair(state: State, err: PackageError): State | null {
    if (!this.active || this.repairs >= MAX_REPAIRS) return null;
    this.repairs++;
    const f = err.control ? fieldById(err.control) : undefined;
    // The bound, if the form takes it (the page's envelope for typed values may be narrower).
    const bound = f ? workBound(err, f.integer === true) : undefined;
    const takes = (v: number): boolean => !f?.limit || (v >= f.limit.min && v <= f.limit.max);
    let fixed: State;
    if (f && bound !== undefined && bound !== f.get(state) && takes(bound)) {
      // Too much work with the link's other values (a closed loop of many clients and no
      // think: no duration near the default fits): the value the refusal says fits, so the
      // link's scenario and clients stand. The note quotes the link's own value, when the
      // field had one (an earlier repair may have put the default there).
      fixed = cloneState(state);
      f.set(fixed, bound);
      const given = this.given.get(f.id) ?? (f.get(state) !== f.get(DEFAULT_STATE) ? String(f.get(state)) : undefined);
      const message = (lang: Lang) => localizeError(err, lang);
      this.beside.add(f.id);
      this.form.setNotice(f.id, (t, lang) =>
        given === undefined ? t("link.bounded", { message: message(lang) }) : t("link.boundedValue", { value: quoted(given), message: message(lang) }),
      );
    } else if (f && f.get(state) !== f.get(DEFAULT_STATE)) {
      fixed = cloneState(state);
      f.set(fixed, f.get(DEFAULT_STATE));
      const value = quoted(String(f.get(state)));
      this.given.set(f.id, String(f.get(state)));
      this.beside.add(f.id);
      this.form.setNotice(f.id, (t, lang) => t("link.refused", { value, message: localizeError(err, lang) }));
    } else {
      // Nothing to single out: the whole picture falls back to the defaults.
      fixed = { ...cloneState(DEFAULT_STATE), rows: state.rows, speed: state.speed };
      this.notes.push((t, lang) => t("link.reset", { message: localizeError(err, lang) }));
    }
    this.render();
    return fixed;
  }

  /** The reader edited a setting: refusals are theirs from now on (the notes stay). */
  end(): void {
    this.active = false;
  }

  /** The reader chose a preset: the link is done with, notes and all. */
  forget(): void {
    this.active = false;
    if (this.notes.length > 0 || this.beside.size > 0) {
      this.notes = [];
      this.beside.clear();
      this.render();
    }
  }
}
