// Serves the bundled consumer on loopback, loads it in headless Chromium, and checks that
// the package ran: the bundler build works end to end. Bounded in time; stops by itself.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const dist = fileURLToPath(new URL("../../target/bundler-dist/", import.meta.url));
const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm" };
const server = createServer(async (req, res) => {
  try {
    const path = join(dist, req.url === "/" ? "index.html" : decodeURIComponent(req.url.split("?")[0]));
    const body = await readFile(path);
    res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(body);
  } catch {
    res.writeHead(404).end();
  }
}).listen(0, "127.0.0.1");
await new Promise((r) => server.once("listening", r));
// launch() starts from a fresh, empty profile of its own.
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
});
try {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  const result = await page.waitForFunction(() => globalThis.stampedeResult, null, { timeout: 15_000 }).then((h) => h.jsonValue());
  const ok = JSON.stringify(result.delays) === "[200,400,800]" && result.requests === 100 && result.errorClasses === true && errors.length === 0;
  console.log(ok ? "1 passed, 0 failed" : `0 passed, 1 failed: ${JSON.stringify(result)} ${errors}`);
  process.exitCode = ok ? 0 : 1;
} finally {
  await browser.close();
  server.close();
}
