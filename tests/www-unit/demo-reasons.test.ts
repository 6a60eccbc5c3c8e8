// The in-browser demo's reason phrases (www/src/demo/api.ts): the status line `stampede
// serve` sends for every code, so that the demo's Response has the server's statusText.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reasonPhrase } from "../../www/src/demo/api.js";

test("the demo names every registered status, as stampede serve does", () => {
  const named: [number, string][] = [
    [200, "OK"],
    [203, "Non Authoritative Information"],
    [226, "IM Used"],
    [405, "Method Not Allowed"],
    [410, "Gone"],
    [413, "Payload Too Large"],
    [418, "I'm a teapot"],
    [421, "Misdirected Request"],
    [422, "Unprocessable Entity"],
    [451, "Unavailable For Legal Reasons"],
    [505, "HTTP Version Not Supported"],
    [511, "Network Authentication Required"],
  ];
  for (const [code, phrase] of named) assert.equal(reasonPhrase(code), phrase, String(code));
  // Unregistered codes have no phrase.
  for (const code of [299, 306, 419, 509, 599, 600, 0, -1, 200.5, Number.NaN]) assert.equal(reasonPhrase(code), "", String(code));
});

/** The status code and reason phrase of a GET, as the status line has them (Node's fetch
 *  cannot read a 407: it takes it for its own proxy's). */
function statusLine(url: string): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      res.resume();
      res.once("end", () => resolve([res.statusCode ?? 0, res.statusMessage ?? ""]));
    }).once("error", reject);
  });
}

/**
 * Every status the demo answers (`status/{code}`, 200 to 599) asked of `stampede serve`: the
 * demo's phrase is the server's statusText. Needs target/release/stampede (`make build`).
 */
test("the demo's phrase is stampede serve's statusText for every code from 200 to 599", async (t) => {
  const bin = join(process.env["STAMPEDE_ROOT"] ?? ".", "target", "release", "stampede");
  if (!existsSync(bin)) {
    t.skip(`${bin} is not built (make build)`);
    return;
  }
  // Only the API is asked: an empty folder stands in for the page.
  const page = mkdtempSync(join(tmpdir(), "stampede-reasons-"));
  t.after(() => rmSync(page, { recursive: true, force: true }));
  const child = spawn(bin, ["serve", "--addr", "127.0.0.1:0", "--static", page], { stdio: ["ignore", "pipe", "pipe"] });
  const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  try {
    const origin = await new Promise<string>((resolve, reject) => {
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
    const differ: string[] = [];
    for (let code = 200; code <= 599; code++) {
      const [got, phrase] = await statusLine(`${origin}/api/status/${code}`);
      assert.equal(got, code);
      // hyper writes "<none>" for a code it has no phrase for; the demo leaves it empty.
      const server = phrase === "<none>" ? "" : phrase;
      if (reasonPhrase(code) !== server) differ.push(`${code}: demo ${JSON.stringify(reasonPhrase(code))}, server ${JSON.stringify(server)}`);
    }
    assert.deepEqual(differ, []);
  } finally {
    clearTimeout(killer);
    child.kill("SIGTERM");
  }
});
