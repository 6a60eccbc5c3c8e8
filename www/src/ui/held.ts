// The note at the top of the herd's figure that says why the picture stays as it was: which
// settings are refused, each a button to its control. The figure is docked at the bottom of a
// narrow screen, so the note is in view while a control is; the controls and the messages
// beside them may be a screen or more away (a typed cap of 10 left the picture as it was, and
// the next slider moved without redrawing, with no word in view). Not a live region: the
// fields' own messages and the run's error are alerts, and say it once.

import type { T } from "./i18n-dom.js";

/** A control's name as the reader sees it: its label, and for policy B's controls (labelled
 *  as A's are) the group's name before it. */
export function controlName(id: string): string {
  const label = document.querySelector(`label[for="${id}"]`)?.textContent?.trim() || id;
  const group = document.getElementById(id)?.closest("#group-b")?.querySelector("legend")?.textContent?.trim();
  return group ? `${group}: ${label}` : label;
}

/** Shows the note for the refused controls `ids` (and `other`, the id of an error's own
 *  message when the run's error has no control among them), or hides it. */
export function showHeld(note: HTMLElement, ids: readonly string[], other: string | null, t: T, lang: string): void {
  const names = ids.map((id) => ({ id, name: controlName(id) }));
  if (other !== null) names.push({ id: other, name: t("status.heldWhy") });
  const key = names.map((n) => `${n.id}:${n.name}`).join("|") + lang;
  if (note.dataset["shows"] === key) return;
  note.dataset["shows"] = key;
  note.replaceChildren();
  note.hidden = names.length === 0;
  if (names.length === 0) return;
  note.append(t("status.held"));
  for (const [i, { id, name }] of names.entries()) {
    note.append(i > 0 ? ", " : " ");
    const go = document.createElement("button");
    go.type = "button";
    go.className = "linkish";
    go.textContent = name;
    go.addEventListener("click", () => {
      const target = document.getElementById(id);
      target?.scrollIntoView({ block: "center" });
      if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement) target.focus({ preventScroll: true });
    });
    note.append(go);
  }
}
