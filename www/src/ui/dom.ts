// The page's one DOM lookup: an element the HTML must have, or a clear error naming it.

/** The element with `id`; throws naming it when the page lacks it (a broken build, not input). */
export function byId<E extends HTMLElement>(id: string): E {
  const e = document.getElementById(id);
  if (!e) throw new Error(`#${id} is missing`);
  return e as E;
}

// Writers that touch the DOM only on a change. The form is synced from the state on every
// input, and a write of the same value still invalidates style (a mutation record each):
// at 100,000 clients those frames run beside the simulation in its worker, on 2 cores.

/** Sets `e`'s text if it differs. */
export function setText(e: HTMLElement, text: string): void {
  if (e.textContent !== text) e.textContent = text;
}

/** Hides or shows `e` if that changes anything. */
export function setHidden(e: HTMLElement, hidden: boolean): void {
  if (e.hidden !== hidden) e.hidden = hidden;
}

/** Sets attribute `name` of `e` to `value` if it differs. */
export function setAttr(e: Element, name: string, value: string): void {
  if (e.getAttribute(name) !== value) e.setAttribute(name, value);
}
