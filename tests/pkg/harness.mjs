// The package as a user gets it: `npm pack` of the built package (crates/stampede-wasm/pkg,
// made by `make wasm`), fresh projects in a temporary folder that install that tarball and
// nothing else of this repository, `stampede serve` on a loopback port, and headless Chromium.
// Every child process is bounded in time and stopped after the tests.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const PKG = join(ROOT, "crates", "stampede-wasm", "pkg");
export const SERVER_BIN = process.env.STAMPEDE_BIN ?? join(ROOT, "target", "release", "stampede");
export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** The tools' versions: the repository's own (already in the npm cache here), webpack pinned. */
const devDeps = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).devDependencies;
export const VERSIONS = { vite: devDeps.vite, typescript: devDeps.typescript, webpack: "5.112.2" };

/** What is missing to run, or null. */
export function missingPrerequisites() {
  const missing = [];
  if (!existsSync(join(PKG, "package.json")) || !existsSync(join(PKG, "fetch"))) missing.push(`${PKG} (make wasm)`);
  if (!existsSync(SERVER_BIN)) missing.push(`${SERVER_BIN} (make build)`);
  if (!existsSync(CHROMIUM)) missing.push(`${CHROMIUM} (apt-get install chromium)`);
  return missing.length ? missing : null;
}

/**
 * Runs a command to its end within `timeoutMs` (then kills it); resolves with its output,
 * rejects with it on a non-zero exit.
 */
export function run(cmd, args, { cwd, timeoutMs = 120_000, env } = {}) {
  return new Promise((res, rej) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (out += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      rej(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) res(out);
      else rej(new Error(`${cmd} ${args.join(" ")} (in ${cwd}) ended with ${signal ?? code}:\n${out}`));
    });
  });
}

/** A fresh temporary folder for the whole suite, removed by `cleanup` (kept with STAMPEDE_KEEP_TMP=1). */
export function workspace() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "stampede-pkg-")));
  return {
    dir,
    cleanup() {
      if (process.env.STAMPEDE_KEEP_TMP) console.log(`kept ${dir}`);
      else rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `npm pack`s the package into `dir`; resolves with { tarball, files } (files: paths in it). */
export async function pack(dir) {
  const out = await run("npm", ["pack", "--json", "--pack-destination", dir], { cwd: PKG, timeoutMs: 60_000 });
  const [info] = JSON.parse(out.slice(out.indexOf("[")));
  return { tarball: join(dir, info.filename), files: info.files.map((f) => f.path).sort(), size: info.size };
}

/**
 * A new project `name` in `dir`: writes `files` (path → text), then installs the tarball and
 * `deps` (name → version) from the registry, the npm cache first. The tarball is copied in, so
 * the project names nothing outside itself.
 */
export async function project(dir, name, tarball, files, deps = {}) {
  const root = join(dir, name);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: `stampede-user-${name}`, private: true, type: "module" }, null, 2));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const local = join(root, "stampede.tgz");
  writeFileSync(local, readFileSync(tarball));
  const specs = ["./stampede.tgz", ...Object.entries(deps).map(([n, v]) => `${n}@${v}`)];
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", ...specs], { cwd: root, timeoutMs: 150_000 });
  return root;
}

/** Starts `stampede serve` on a free loopback port serving `staticDir`; resolves with { base, log, stop }. */
export async function startServer(staticDir, { timeoutMs = 15_000 } = {}) {
  const child = spawn(SERVER_BIN, ["serve", "--addr", "127.0.0.1:0", "--static", staticDir], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, RUST_LOG: "warn" },
  });
  let out = "";
  const stop = () =>
    new Promise((res) => {
      if (child.exitCode !== null || child.signalCode !== null) return res();
      const kill = setTimeout(() => child.kill("SIGKILL"), 3000);
      child.once("exit", () => {
        clearTimeout(kill);
        res();
      });
      child.kill("SIGTERM");
    });
  const base = await new Promise((res, rej) => {
    const timer = setTimeout(() => {
      void stop();
      rej(new Error(`stampede serve did not start within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (chunk) => {
      out += chunk;
      const m = out.match(/http:\/\/(127\.0\.0\.1:\d+)\//);
      if (m) {
        clearTimeout(timer);
        res(`http://${m[1]}`);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      rej(new Error(`stampede serve exited (${code}):\n${out}`));
    });
  });
  child.removeAllListeners("exit");
  return {
    base,
    stop,
    /** What the server received for `key`, oldest first. */
    async log(key) {
      const r = await fetch(`${base}/api/log?key=${encodeURIComponent(key)}`);
      return (await r.json()).entries;
    },
  };
}

/** Launches Chromium (a fresh, empty profile of its own). */
export function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
    timeout: 30_000,
  });
}
