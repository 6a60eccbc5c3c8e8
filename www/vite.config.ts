// Vite builds the playground into www/dist: relative asset paths (any static host), the wasm
// package aliased as `stampede`, its .wasm emitted as a hashed asset, the worker as an ES module.
//
//   npx vite build --config www/vite.config.ts     # www/dist
//   npx vite --config www/vite.config.ts           # dev server (needs crates/stampede-wasm/pkg)
import { defineConfig, type Plugin } from "vite";

const here = (p: string) => decodeURIComponent(new URL(p, import.meta.url).pathname);

/**
 * The dev server injects CSS as <style> elements, which the page's Content-Security-Policy
 * (style-src 'self') forbids. In dev only, allow inline styles; the built page keeps the
 * strict policy.
 */
function devCsp(): Plugin {
  return {
    name: "stampede-dev-csp",
    apply: "serve",
    transformIndexHtml: (html) => html.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'"),
  };
}

/**
 * The demo API's Service Worker, built to `sw.js` beside index.html: a Service Worker's
 * scope is its script's folder, so it must sit with the page and keep a fixed name. It
 * shares no module with the page, so it is one self-contained file (no import).
 */
function serviceWorker(): Plugin {
  return {
    name: "stampede-service-worker",
    apply: "build",
    buildStart() {
      this.emitFile({ type: "chunk", id: here("src/demo/sw.ts"), fileName: "sw.js" });
    },
  };
}

export default defineConfig({
  root: here("."),
  base: "./",
  publicDir: here("public"),
  plugins: [devCsp(), serviceWorker()],
  resolve: {
    alias: {
      stampede: here("../crates/stampede-wasm/pkg/stampede.js"),
    },
  },
  worker: {
    format: "es",
  },
  build: {
    outDir: here("dist"),
    emptyOutDir: true,
    target: "es2022",
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  server: {
    host: "127.0.0.1",
    fs: { allow: [here("..")] },
  },
});
