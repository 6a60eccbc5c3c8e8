// Where the page's status and a link's note sit. Beside the herd's heading on a wide screen;
// on a narrow one that place comes after every control, some 2,800 px below the top where
// the page opens, so a reader saw greyed controls and no reason (the simulator loading, or
// failing to; values of the link that were dropped). There they move to a slot under the
// header, and back when the screen widens. The elements move whole: ids, live regions, texts.

/** narrow.css's one-column layout (the herd figure docked at the screen's bottom). */
export const NARROW = "(max-width: 900px)";

export function placeNotes(): void {
  const slot = document.getElementById("page-notes");
  const head = document.querySelector<HTMLElement>("#figures .fig-head");
  const status = document.getElementById("status");
  const note = document.getElementById("link-note");
  if (!slot || !head || !status || !note) return;
  const narrow = matchMedia(NARROW);
  const place = () => {
    if (narrow.matches) {
      if (status.parentElement !== slot) slot.append(status, note);
    } else if (status.parentElement !== head) {
      head.append(status);
      head.after(note);
    }
  };
  place();
  narrow.addEventListener("change", place);
}
