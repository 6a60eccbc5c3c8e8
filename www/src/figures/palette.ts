// Colours come from CSS custom properties (styles.css), so the light and dark themes are
// defined in one place. Outcomes use the Okabe–Ito palette, which stays distinguishable
// for the common kinds of colour blindness.

import { CAT, packHex, type HerdPalette } from "./raster.js";

export interface Palette {
  herd: HerdPalette;
  /** CSS colour strings for the charts. */
  offered: string;
  served: string;
  servedFill: string;
  rejected: string;
  capacity: string;
  policyA: string;
  policyB: string;
  grid: string;
  text: string;
  outageFill: string;
  histogram: string;
  goodput: string;
  wasted: string;
  wastedFill: string;
  queue: string;
  queueFill: string;
  /** One colour per safety net (the Okabe–Ito set, in the nets panel's order). */
  nets: string[];
}

/** The nets' colours when the style sheet has none (Okabe–Ito, black last). */
const NET_COLOURS = ["#d55e00", "#0072b2", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#9a8c00", "#1c1e22"];

function cssVar(style: CSSStyleDeclaration, name: string, fallback: string): string {
  const v = style.getPropertyValue(name).trim();
  return v === "" ? fallback : v;
}

export function readPalette(root: Element = document.documentElement): Palette {
  const s = getComputedStyle(root);
  const v = (n: string, f: string) => cssVar(s, n, f);
  const marks: [number, number, number, number, number] = [0, 0, 0, 0, 0];
  marks[CAT.rejected] = packHex(v("--c-rejected", "#e69f00"));
  marks[CAT.failed] = packHex(v("--c-failed", "#d55e00"));
  marks[CAT.blocked] = packHex(v("--c-blocked", "#cc79a7"));
  marks[CAT.served] = packHex(v("--c-served", "#0072b2"));
  marks[CAT.timedOut] = packHex(v("--c-timeout", "#3b3f46"));
  return {
    herd: {
      background: packHex(v("--herd-bg", "#ffffff")),
      outage: packHex(v("--herd-outage", "#eeeeee")),
      marks,
    },
    offered: v("--c-offered", "#d55e00"),
    served: v("--c-served", "#0072b2"),
    servedFill: v("--c-served-fill", "rgba(0,114,178,0.25)"),
    rejected: v("--c-rejected", "#e69f00"),
    capacity: v("--c-capacity", "#333333"),
    policyA: v("--c-policy-a", "#d55e00"),
    policyB: v("--c-policy-b", "#0072b2"),
    grid: v("--grid", "#dddddd"),
    text: v("--text-muted", "#555555"),
    outageFill: v("--outage-fill", "rgba(0,0,0,0.06)"),
    histogram: v("--c-histogram", "#009e73"),
    goodput: v("--c-goodput", "#009e73"),
    wasted: v("--c-wasted", "#d55e00"),
    wastedFill: v("--c-wasted-fill", "rgba(213,94,0,0.2)"),
    queue: v("--c-queue", "#5c626c"),
    queueFill: v("--c-queue-fill", "rgba(92,98,108,0.18)"),
    nets: NET_COLOURS.map((c, i) => v(`--c-net-${i}`, c)),
  };
}
