// A panel's typed number field (`<input type="number">` with its inline message): reads the
// value within the panel's envelope (logic/typed.ts) and says what is wrong next to it; the
// panel keeps its last good picture meanwhile.

import { formatNumber } from "../logic/format.js";
import type { Lang } from "../logic/state.js";
import { parseTyped, problemWords, type Envelope } from "../logic/typed.js";
import type { FieldProblem } from "../logic/fields.js";
import { byId } from "./dom.js";
import type { T } from "./i18n-dom.js";

/** How long typing in a number field pauses before its value counts (ms): each keystroke ran
 *  the value so far (typing 1e9 ran the panel on 1 first). */
export const TYPING_PAUSE_MS = 300;

export class TypedField {
  readonly input: HTMLInputElement;
  private readonly error: HTMLElement;
  private problem: FieldProblem | null = null;
  /** A message from the package about this field (it refused the value). */
  private refused: string | null = null;

  constructor(
    id: string,
    readonly env: Envelope,
    onInput: () => void,
  ) {
    this.input = byId<HTMLInputElement>(id);
    this.error = byId(`${id}-error`);
    // Typed text counts once the typing pauses (or on Enter, or when the field is left); a step
    // of the spinner or an arrow key (an input with no text typed) counts at once, as the
    // main controls' fields do.
    let typing = 0;
    const settle = () => {
      if (typing === 0) return;
      window.clearTimeout(typing);
      typing = 0;
      onInput();
    };
    this.input.addEventListener("input", (ev) => {
      window.clearTimeout(typing);
      typing = 0;
      if (ev instanceof InputEvent && ev.inputType) typing = window.setTimeout(settle, TYPING_PAUSE_MS);
      else onInput();
    });
    this.input.addEventListener("change", settle);
  }

  /** The value, or null (the problem is shown until `render`). */
  read(): number | null {
    const parsed = parseTyped(this.input.value, this.env, this.input.validity.badInput);
    this.refused = null;
    this.problem = parsed.ok ? null : parsed.problem;
    return parsed.ok ? parsed.value : null;
  }

  /** Not in use (its setting does not apply): no problem shown. */
  clear(): void {
    this.problem = null;
    this.refused = null;
  }

  /** The package refused the value: its words, shown next to the field. */
  refuse(message: string): void {
    this.refused = message;
  }

  get ok(): boolean {
    return this.problem === null && this.refused === null;
  }

  render(t: T, lang: Lang): void {
    let text = this.refused ?? "";
    if (this.problem) {
      const w = problemWords(this.problem);
      const vars = w.vars ? Object.fromEntries(Object.entries(w.vars).map(([k, v]) => [k, formatNumber(v, lang, 3)])) : undefined;
      text = t(w.key, vars);
    }
    this.error.textContent = text;
    this.error.hidden = text === "";
    if (text) this.input.setAttribute("aria-invalid", "true");
    else this.input.removeAttribute("aria-invalid");
  }
}
