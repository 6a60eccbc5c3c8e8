// Filling the dictionaries' texts (i18n.ts) in: `{name}` placeholders, and `{name|form|…}`
// plural forms chosen by the number `name` holds.

import { DICTIONARIES, en, type Key } from "./i18n.js";
import type { Lang } from "./state.js";

export function isKey(k: string): k is Key {
  return Object.prototype.hasOwnProperty.call(en, k);
}

/** The plural categories each language's words are given in, in `{name|…}` (see `translate`):
 *  Intl.PluralRules' categories, so "1 attempt", "2 attempts"; "1 попытки", "5 попыток". */
const PLURALS: Record<Lang, readonly Intl.LDMLPluralRule[]> = { en: ["one", "other"], ru: ["one", "few", "many", "other"] };

/** Each language's rules, made once: the herd's "attempts so far" is translated every frame. */
const RULES: Record<Lang, Intl.PluralRules> = { en: new Intl.PluralRules("en"), ru: new Intl.PluralRules("ru") };

/** A placeholder, `{name}`, or a plural, `{name|form|form…}`. */
const PLACEHOLDER = /\{(\w+)(?:\|([^}]*))?\}/g;

/** The text of `key` in `lang`, with `{name}` placeholders filled from `vars`, and
 *  `{name|form|form…}` the form that fits the number `vars[name]` (one per category of
 *  PLURALS[lang], in its order; the last one where a number fits none). */
export function translate(lang: Lang, key: Key, vars?: Record<string, string | number>): string {
  const text = DICTIONARIES[lang][key] ?? en[key];
  if (!vars) return text;
  return text.replace(PLACEHOLDER, (m, name: string, forms: string | undefined) => {
    if (!(name in vars)) return m;
    if (forms === undefined) return String(vars[name]);
    const words = forms.split("|");
    const at = PLURALS[lang].indexOf(RULES[lang].select(Number(vars[name])));
    return words[at] ?? words[words.length - 1] ?? "";
  });
}

/** The placeholders a text uses, e.g. ["min", "max"] (a plural's number, `{count|…}`, too). */
export function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1] ?? ""))].sort();
}
