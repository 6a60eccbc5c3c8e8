// A finger on a slider's track. Chromium moves the thumb to where a finger lands, before it
// knows whether the finger will drag sideways (set the value) or swipe up (scroll the page):
// on a phone, where the sliders cover much of the screen, scrolling past them set Clients to
// a million and re-ran the simulation. So a touch on a slider holds its `input` events back
// until the gesture says what it is:
// - a sideways move (more across than down, past a few pixels): a drag; what was held goes
//   out as one `input`, and the rest of the drag goes out as it comes;
// - a lift without one (a tap): the tap sets the value, as before, with one `input`;
// - the browser taking the touch over to scroll (`pointercancel`): the slider goes back to
//   the value it had, and nothing went out.
// Mouse and pen are left alone. Sliders scroll vertically by default (touch-action pan-y in
// Chromium's own style), which is what makes the scroll hand back a `pointercancel`.

/** How far a finger moves across before a touch is a drag (CSS px). A move at 45° or flatter
 *  counts as across: Chromium does not scroll for it either. */
const DRAG_PX = 8;

interface Touch {
  el: HTMLInputElement;
  x: number;
  y: number;
  /** The slider's value when the finger landed. */
  value: string;
  /** The value the finger set, held back (null: none yet). The page may write the slider
   *  meanwhile (the playhead moves the scrubber, a finished run the fleet's sliders): the
   *  finger's value is the one that goes out, and the page's stays if the touch scrolls. */
  held: string | null;
  /** The gesture is known to set the value: input events pass. */
  drag: boolean;
}

export function holdTouchSlides(root: Document = document): void {
  /** The touches on sliders, by pointer (two fingers, two sliders). */
  const touches = new Map<number, Touch>();
  const slider = (t: EventTarget | null): HTMLInputElement | null =>
    t instanceof HTMLInputElement && t.type === "range" ? t : null;
  const holding = (el: EventTarget | null): Touch | undefined => {
    for (const t of touches.values()) if (t.el === el && !t.drag) return t;
    return undefined;
  };
  /** Lets what the touch held back go out, once, as the page's own listeners expect it. */
  const release = (t: Touch): void => {
    t.drag = true;
    if (t.held === null) return;
    if (t.el.value !== t.held) t.el.value = t.held;
    t.el.dispatchEvent(new Event("input", { bubbles: true }));
  };
  root.addEventListener(
    "pointerdown",
    (e) => {
      const el = slider(e.target);
      if (!el || e.pointerType !== "touch") return;
      touches.set(e.pointerId, { el, x: e.clientX, y: e.clientY, value: el.value, held: null, drag: false });
    },
    true,
  );
  // Held back before any of the page's listeners sees it (capture, at the document).
  root.addEventListener(
    "input",
    (e) => {
      const t = holding(e.target);
      if (!t) return;
      t.held = t.el.value;
      e.stopImmediatePropagation();
    },
    true,
  );
  root.addEventListener(
    "pointermove",
    (e) => {
      const t = touches.get(e.pointerId);
      if (!t || t.drag) return;
      const [dx, dy] = [Math.abs(e.clientX - t.x), Math.abs(e.clientY - t.y)];
      if (dx >= DRAG_PX && dx >= dy) release(t);
    },
    true,
  );
  root.addEventListener(
    "pointerup",
    (e) => {
      const t = touches.get(e.pointerId);
      if (!t) return;
      touches.delete(e.pointerId);
      if (!t.drag) release(t);
    },
    true,
  );
  root.addEventListener(
    "pointercancel",
    (e) => {
      const t = touches.get(e.pointerId);
      if (!t) return;
      touches.delete(e.pointerId);
      // The page scrolled: the slider was never meant to move. What the page wrote into it
      // since the finger landed stays.
      if (!t.drag && t.held !== null && t.el.value === t.held) t.el.value = t.value;
    },
    true,
  );
}
