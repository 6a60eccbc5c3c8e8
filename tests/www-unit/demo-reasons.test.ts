// The in-browser demo's reason phrases (www/src/demo/api.ts): the status line `stampede
// serve` sends for every code, so that the demo's Response has the server's statusText.

import { test } from "node:test";
import assert from "node:assert/strict";
import { get } from "node:http";
import { reasonPhrase } from "../../www/src/demo/api.js";
import { serve } from "./serve.js";

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
  const origin = await serve(t);
  if (origin === undefined) return;
  const differ: string[] = [];
  for (let code = 200; code <= 599; code++) {
    const [got, phrase] = await statusLine(`${origin}/api/status/${code}`);
    assert.equal(got, code);
    // hyper writes "<none>" for a code it has no phrase for; the demo leaves it empty.
    const server = phrase === "<none>" ? "" : phrase;
    if (reasonPhrase(code) !== server) differ.push(`${code}: demo ${JSON.stringify(reasonPhrase(code))}, server ${JSON.stringify(server)}`);
  }
  assert.deepEqual(differ, []);
});
