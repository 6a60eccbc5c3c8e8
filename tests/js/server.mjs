// Starts the project's own `stampede serve` on an ephemeral loopback port for a test file
// and stops it afterwards. STAMPEDE_BIN overrides the binary (default: the debug build).
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { once } from "node:events";

export async function startServer() {
  const bin = process.env.STAMPEDE_BIN ?? fileURLToPath(new URL("../../target/debug/stampede", import.meta.url));
  const child = spawn(bin, ["serve", "--addr", "127.0.0.1:0", "--static", tmpdir()], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, RUST_LOG: "warn" },
  });
  let out = "";
  const base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no startup line: ${out}`)), 10_000);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const m = out.match(/http:\/\/(127\.0\.0\.1:\d+)\//);
      if (m) {
        clearTimeout(timer);
        resolve(`http://${m[1]}`);
      }
    });
    child.on("exit", (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  return {
    base,
    async log(key) {
      const r = await fetch(`${base}/api/log?key=${encodeURIComponent(key)}`);
      return (await r.json()).entries;
    },
    async stop() {
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}
