// What every panel is given. The app owns the state and the view settings; a panel reads
// them through its context when it draws and reports what the reader did through callbacks,
// so state flows one way: app → panels, and intents back up to the app. A panel owns its
// own DOM, figures, caches and listeners, and nothing of another panel's.

import type { Frames } from "../app/scheduler.js";
import type { Palette } from "../figures/palette.js";
import type { Lang, State } from "../logic/state.js";
import type { T } from "../ui/i18n-dom.js";
import type { SimResult } from "../wasm/bridge.js";

/** How things are shown, as opposed to what is simulated. */
export interface View {
  readonly t: T;
  readonly lang: Lang;
  readonly palette: Palette;
  /** The rate charts' log scale (the "load-log" box). */
  readonly logScale: boolean;
}

export interface PanelContext {
  /** The settings of the picture on show (the last state that ran). */
  state(): State;
  view(): View;
  /** Policy A's kept run, once there is one. */
  resultA(): SimResult | null;
  /** A figure changed size: everything kept is redrawn in the next frame. */
  resized(): void;
  readonly frames: Frames;
}

export { byId } from "../ui/dom.js";

/** `draw` in the next animation frame, once however many times the returned function is called before it. */
export function oncePerFrame(draw: () => void): () => void {
  let frame = 0;
  return () => {
    if (frame !== 0) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      draw();
    });
  };
}
