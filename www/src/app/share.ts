// The page's state in its address: the address bar follows the state (at most every
// URL_EVERY_MS, since browsers throttle history calls), and Share writes it at once and
// copies the link.

import type { Lang, State } from "../logic/state.js";
import { encodeState } from "../logic/url.js";
import type { T } from "../ui/i18n-dom.js";
import { byId } from "../panels/panel.js";
import { setText } from "../ui/dom.js";
import { PANEL_LINK_IDS, panelQuery } from "./panel-link.js";

/** The address bar follows the state at most this often. */
const URL_EVERY_MS = 250;

/** How long "Link copied" stays (on a phone it sits on a line of its own, and stayed for
 *  good, pushing the page down). */
export const SHARE_STATUS_MS = 4000;

/** What the link is made of, read when it is written. */
export interface Shared {
  state: State;
  lang: Lang;
  t: T;
  /** The story on show (its settings unchanged), if any: the link opens it again. */
  story: string | null;
}

export class ShareLink {
  private timer = 0;
  private statusTimer = 0;
  private readonly status = byId("share-status");

  constructor(private readonly current: () => Shared) {
    byId("share").addEventListener("click", () => void this.share());
    // The panels' own settings go into the link too (app/panel-link.ts).
    for (const id of PANEL_LINK_IDS) {
      for (const type of ["change", "input"]) document.getElementById(id)?.addEventListener(type, () => this.follow());
    }
  }

  /** The query the address and Share write: the state's, then the panels' settings. */
  private query(): string {
    const { state, lang, story } = this.current();
    return encodeState(state, lang) + (story === null ? "" : `&story=${encodeURIComponent(story)}`) + panelQuery();
  }

  /** The address bar catches up with the state within URL_EVERY_MS. */
  follow(): void {
    if (this.timer !== 0) return;
    this.timer = window.setTimeout(() => {
      this.timer = 0;
      const q = this.query();
      if (location.search.slice(1) !== q) history.replaceState(null, "", `?${q}${location.hash}`);
    }, URL_EVERY_MS);
  }

  /** The language changed: "Link copied" goes, in the old language and about a link that
   *  named it (the address now names the new one). */
  relabel(): void {
    setText(this.status, "");
  }

  private async share(): Promise<void> {
    const q = this.query();
    // The hash (a section the reader is at) stays: the link opens where it was copied.
    history.replaceState(null, "", `?${q}${location.hash}`);
    let said: string;
    try {
      await navigator.clipboard.writeText(location.href);
      said = this.current().t("share.copied");
    } catch {
      said = this.current().t("share.failed");
    }
    this.status.textContent = said;
    window.clearTimeout(this.statusTimer);
    this.statusTimer = window.setTimeout(() => {
      if (this.status.textContent === said) setText(this.status, "");
    }, SHARE_STATUS_MS);
  }
}
