// A plain static file server, as GitHub Pages or a bucket behaves: the built page (www/dist)
// under a sub-path, files only (no /api, a 404 for anything else), on 127.0.0.1. It is not
// `stampede serve`: it knows nothing of the page. It stops by itself after `lifetimeMs`.

import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json",
};

/**
 * Serves `dir` under `prefix` (e.g. "/some/deep/path/"). Resolves with `{ url, requests, stop }`:
 * `url` is the page's address, `requests` every path asked for, in order.
 */
export function serveStatic(dir, prefix, { lifetimeMs = 300_000 } = {}) {
  const requests = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push(path);
    const notFound = () => {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("404 Not Found\n");
    };
    if (!path.startsWith(prefix)) return notFound();
    let file = normalize(join(dir, path.slice(prefix.length)));
    if (file !== dir && !file.startsWith(dir + sep)) return notFound();
    try {
      if ((await stat(file)).isDirectory()) file = join(file, "index.html");
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-cache" });
      res.end(req.method === "HEAD" ? undefined : body);
    } catch {
      notFound();
    }
  });
  const stop = () =>
    new Promise((resolve) => {
      clearTimeout(deadline);
      server.closeAllConnections();
      server.close(() => resolve());
    });
  const deadline = setTimeout(() => void stop(), lifetimeMs);
  deadline.unref();
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
      resolve({ url: `http://127.0.0.1:${port}${prefix}`, requests, stop });
    });
  });
}
