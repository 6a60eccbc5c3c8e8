// Builds tests/bundler against the --target bundler package (made by `make test-bundler`).
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";
import wasm from "vite-plugin-wasm";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  logLevel: "warn",
  plugins: [wasm()],
  resolve: { alias: { stampede: fileURLToPath(new URL("../../target/pkg-bundler/stampede.js", import.meta.url)) } },
  build: { outDir: fileURLToPath(new URL("../../target/bundler-dist", import.meta.url)), emptyOutDir: true, target: "es2022" },
});
