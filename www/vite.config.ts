// Vite builds the playground into www/dist: relative asset paths (any static host), the wasm
// package aliased as `stampede`, its .wasm emitted as a hashed asset, the worker as an ES module.
//
//   npx vite build --config www/vite.config.ts     # www/dist
//   npx vite --config www/vite.config.ts           # dev server (needs crates/stampede-wasm/pkg)
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
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
 * The built page without index.html's comments, which are notes for whoever edits it, and
 * without its lines' indentation (0.3 KB of the first load's gzip each; the first load has a
 * 250 KB budget). The page holds no inline script or conditional comment whose text a
 * comment could be part of; a line break stays where indentation was, so text between inline
 * elements keeps its space. Indentation inside a <pre> or <textarea> would be content: the
 * page's are empty (filled by script), and the build stops if one is not.
 */
function leanIndexHtml(): Plugin {
  return {
    name: "stampede-lean-index-html",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler: (html) => {
        if (/<(pre|textarea)\b[^>]*>(?!<\/\1>)/.test(html.replace(/<pre\b[^>]*><code\b[^>]*><\/code><\/pre>/g, ""))) {
          throw new Error("index.html: a <pre> or <textarea> has content, which removing indentation would change");
        }
        return html.replace(/<!--[\s\S]*?-->/g, "").replace(/\n\s+/g, "\n");
      },
    },
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

/**
 * Writes `name.br` and `name.gz` beside each built file worth compressing, once, at their
 * best: `stampede serve` sends those (ServeDir's precompressed files) instead of compressing
 * the wasm and the scripts for every request, which held ~0.4 MB of compressor a connection
 * (450 clients that never read: 219 MB). Static hosts that know the convention use them too;
 * the others ignore them.
 */
function precompress(): Plugin {
  return {
    name: "stampede-precompress",
    apply: "build",
    writeBundle(options, bundle) {
      const dir = options.dir;
      if (!dir) return;
      for (const [fileName, item] of Object.entries(bundle)) {
        if (!/\.(js|wasm|css|html|svg|json)$/.test(fileName)) continue;
        const bytes = Buffer.from(item.type === "chunk" ? item.code : item.source);
        if (bytes.length < 1024) continue;
        const path = join(dir, fileName);
        writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
        writeFileSync(`${path}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
      }
    },
  };
}

export default defineConfig({
  root: here("."),
  base: "./",
  publicDir: here("public"),
  plugins: [devCsp(), serviceWorker(), leanIndexHtml(), precompress()],
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
