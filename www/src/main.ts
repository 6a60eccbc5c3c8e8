// Boot: restore the state from the URL, build the page while the wasm core loads, draw.

import "./styles.css";
import "./figures.css";
import "./panels.css";
import "./beyond.css";
import "./narrow.css";
import { App } from "./app.js";
import { applyPanelParams } from "./app/panel-link.js";
import { errorMessage } from "./logic/errors.js";
import { translate } from "./logic/translate.js";
import { hasWasmSimd } from "./logic/simd.js";
import { DEFAULT_STATE, cloneState, type Lang } from "./logic/state.js";
import { decodeState } from "./logic/url.js";
import { linkedStory, presetById } from "./logic/presets.js";
import { ready } from "./wasm/bridge.js";
import { placeNotes } from "./ui/page-notes.js";
import { watchDock } from "./ui/dock.js";
import { holdTouchSlides } from "./ui/touch-slider.js";

function initialLang(fromUrl: Lang | undefined): Lang {
  if (fromUrl) return fromUrl;
  return navigator.language.toLowerCase().startsWith("ru") ? "ru" : "en";
}

async function boot(): Promise<void> {
  performance.mark("stampede:boot");
  const decoded = decodeState(location.search, DEFAULT_STATE);
  const lang = initialLang(decoded.lang);
  // On a phone, the status and a link's note go to the top, before anything is said in them.
  placeNotes();
  // On a phone, the docked herd leaves the page its swipes.
  const figure = document.getElementById("herd-figure");
  if (figure) watchDock(figure);
  // A swipe that starts on a slider scrolls; it does not set the slider.
  holdTouchSlides();
  const status = document.getElementById("status");
  if (status) status.textContent = translate(lang, "status.loading");
  // The wasm module downloads and compiles while the page is built.
  const loading = ready();
  // The panels' own settings first: the panels read their controls when they are built.
  const panels = applyPanelParams(location.search);
  // A bare address opens on the first story; a link, on the story it names (if any).
  // A story the page does not have (a typo, a link from a later version): said, not ignored;
  // a link that held nothing else opens as a bare address does, on the first story.
  // A link that names a story and nothing else (`?story=storm`, as a teacher writes one by
  // hand; the page's own links carry the story's settings too) opens that story.
  const params = new URLSearchParams(location.search);
  const named = params.get("story");
  const preset = named === null ? undefined : presetById(named);
  const unknownStory = named !== null && named !== "" && preset === undefined ? named : undefined;
  const storyAlone = [...params.keys()].every((k) => k === "story" || k === "lang");
  const bare = location.search === "" || (unknownStory !== undefined && storyAlone);
  const alone = storyAlone ? preset : undefined;
  const story = bare ? "herd" : alone ? alone.id : linkedStory(location.search, decoded.state);
  const initial = alone ? { ...cloneState(alone.state), rows: decoded.state.rows, speed: decoded.state.speed } : decoded.state;
  const app = new App(initial, lang, story, { ...decoded, panels, ...(unknownStory === undefined ? {} : { unknownStory }) });
  performance.mark("stampede:built");
  try {
    await loading;
    performance.mark("stampede:wasm-ready");
  } catch (e) {
    if (status) {
      status.textContent = hasWasmSimd()
        ? translate(lang, "status.loadFailed", { message: errorMessage(e) })
        : translate(lang, "status.noSimd");
    }
    return;
  }
  if (status) status.textContent = "";
  // The app marks "stampede:interactive" (and html[data-ready]) when the first picture is
  // drawn, and enables its controls then.
  app.start();
}

void boot();
