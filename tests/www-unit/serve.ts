// `stampede serve` for the page's unit tests that compare the in-browser demo with the real
// server: started on a free loopback port over an empty folder (only the API is asked: the
// page may not be built yet), killed when the test ends, and after 60 s whatever happens.
// Needs target/release/stampede (`make build`): a test without it is skipped.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";

/** The server's origin (`http://127.0.0.1:PORT`), or undefined when the binary is not built
 *  (the test is then skipped). The server stops when the test `t` ends. */
export async function serve(t: TestContext): Promise<string | undefined> {
  const bin = join(process.env["STAMPEDE_ROOT"] ?? ".", "target", "release", "stampede");
  if (!existsSync(bin)) {
    t.skip(`${bin} is not built (make build)`);
    return undefined;
  }
  const page = mkdtempSync(join(tmpdir(), "stampede-demo-"));
  const child = spawn(bin, ["serve", "--addr", "127.0.0.1:0", "--static", page], { stdio: ["ignore", "pipe", "pipe"] });
  const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  t.after(() => {
    clearTimeout(killer);
    child.kill("SIGTERM");
    rmSync(page, { recursive: true, force: true });
  });
  return new Promise<string>((resolve, reject) => {
    let out = "";
    const onData = (chunk: Buffer) => {
      out += chunk;
      const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (m) resolve(m[0]);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`stampede serve exited (${code}): ${out}`)));
  });
}
