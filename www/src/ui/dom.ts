// The page's one DOM lookup: an element the HTML must have, or a clear error naming it.

/** The element with `id`; throws naming it when the page lacks it (a broken build, not input). */
export function byId<E extends HTMLElement>(id: string): E {
  const e = document.getElementById(id);
  if (!e) throw new Error(`#${id} is missing`);
  return e as E;
}
