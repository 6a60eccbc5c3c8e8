// Reading a response the live panel shows: only its start, and never past a Cancel. A body
// read whole with `res.text()` could not be cancelled (retryFetch's signal covers the
// attempts, which end with the headers) and was kept whole in memory before being cut.

/** The first `limit` characters of `res`'s body (`cut` when there were more), read as it
 *  arrives for at most `ms` (what came by then, `cut`: retryFetch's attempt timeout ends with
 *  the headers, and a body sent a byte every half second kept the panel "Sending…" for
 *  hours). Stops reading, and cancels the body, once past the limit or the time; rejects
 *  with `signal`'s reason as soon as it aborts. */
export async function readBody(res: Response, limit: number, signal: AbortSignal, ms = Infinity): Promise<{ text: string; cut: boolean }> {
  signal.throwIfAborted();
  const body = res.body;
  if (body === null) return { text: "", cut: false };
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const [aborted, stop] = onAbort(signal);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    if (ms !== Infinity) timer = setTimeout(() => resolve("late"), ms);
  });
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), aborted, late]);
      if (chunk === "late") return { text: text + decoder.decode(), cut: true };
      if (chunk.done) return { text: text + decoder.decode(), cut: false };
      text += decoder.decode(chunk.value, { stream: true });
      if (text.length > limit) return { text: text.slice(0, limit), cut: true };
    }
  } finally {
    clearTimeout(timer);
    stop();
    // Past the limit or aborted: the rest is not wanted (and its connection is freed).
    reader.cancel().catch(() => {});
  }
}

/** `p`, or a rejection with `signal`'s reason as soon as it aborts (whichever is first). */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  const [aborted, stop] = onAbort(signal);
  return Promise.race([p, aborted]).finally(stop);
}

/** A promise that rejects with `signal`'s reason when it aborts, and what stops listening
 *  (after which it never settles). */
function onAbort(signal: AbortSignal): [Promise<never>, () => void] {
  let stop = () => {};
  const aborted = new Promise<never>((_, reject) => {
    const listener = () => reject(signal.reason);
    signal.addEventListener("abort", listener, { once: true });
    stop = () => signal.removeEventListener("abort", listener);
  });
  return [aborted, stop];
}
