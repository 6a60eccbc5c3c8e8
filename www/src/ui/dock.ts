// On a narrow screen the herd figure sticks to the bottom of the screen while the controls
// above it scroll by (narrow.css), and its rows are a scroller of their own (one pixel row
// a client, 10,000 px of them). Docked there, that scroller took every vertical swipe that
// began on it, a third of a phone's screen: the page stayed still until the rows reached
// their end. So while the figure is docked its rows do not scroll (the page does; a focused
// scroller still takes its keys), and once the figure reaches its own place, after the
// controls, they scroll again. The figure is docked while its own place is below the screen,
// which a mark after it tells.

export function watchDock(figure: HTMLElement): void {
  if (!("IntersectionObserver" in window)) return;
  const mark = document.createElement("div");
  mark.className = "dock-mark";
  mark.setAttribute("aria-hidden", "true");
  figure.after(mark);
  new IntersectionObserver(([e]) => {
    if (!e) return;
    const bottom = e.rootBounds?.bottom ?? window.innerHeight;
    figure.classList.toggle("docked", !e.isIntersecting && e.boundingClientRect.top >= bottom);
  }).observe(mark);
  // Focus and scrolling into view keep a control above the docked figure: the page's
  // scroll padding is the figure's height as it is (its legend, its menu, a note that a
  // setting was refused), not a guess at it (narrow.css fell 43 px short at 390 px, and a
  // focused control sat behind the figure).
  if (!("ResizeObserver" in window)) return;
  const root = document.documentElement;
  new ResizeObserver(() => {
    const px = `${Math.ceil(figure.getBoundingClientRect().height)}px`;
    if (root.style.getPropertyValue("--dock-space") !== px) root.style.setProperty("--dock-space", px);
  }).observe(figure);
}
