// Applies the dictionary to the document: `data-i18n` sets textContent, `data-i18n-rich`
// renders the tiny markup, `data-i18n-attr="aria-label:key;title:key"` sets attributes.

import type { Key } from "../logic/i18n.js";
import { isKey, translate } from "../logic/translate.js";
import type { Lang } from "../logic/state.js";
import { renderRich } from "./rich.js";

export type T = (key: Key, vars?: Record<string, string | number>) => string;

export function translator(lang: Lang): T {
  return (key, vars) => translate(lang, key, vars);
}

export function applyTranslations(root: ParentNode, lang: Lang, vars: Record<string, string | number> = {}): void {
  for (const el of root.querySelectorAll<HTMLElement>("[data-i18n]")) {
    const k = el.dataset["i18n"] ?? "";
    if (isKey(k)) el.textContent = translate(lang, k, vars);
  }
  for (const el of root.querySelectorAll<HTMLElement>("[data-i18n-rich]")) {
    const k = el.dataset["i18nRich"] ?? "";
    if (isKey(k)) renderRich(el, translate(lang, k, vars));
  }
  for (const el of root.querySelectorAll<HTMLElement>("[data-i18n-attr]")) {
    for (const pair of (el.dataset["i18nAttr"] ?? "").split(";")) {
      const [attr, k] = pair.split(":");
      if (attr && k && isKey(k)) el.setAttribute(attr.trim(), translate(lang, k, vars));
    }
  }
  document.documentElement.lang = lang;
  document.title = translate(lang, "page.title");
}
