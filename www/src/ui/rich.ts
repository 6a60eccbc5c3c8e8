// A tiny markup for the explanations: **bold**, `code` and [text](https://…), turned into
// elements with textContent — never parsed as HTML.

const TOKEN = /\*\*([^*]+)\*\*|`([^`]+)`|\[([^\]]+)\]\((https:\/\/[^)\s]+)\)/g;

export function renderRich(el: HTMLElement, text: string): void {
  const nodes: Node[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    const at = m.index ?? 0;
    if (at > last) nodes.push(document.createTextNode(text.slice(last, at)));
    if (m[1] !== undefined) {
      const b = document.createElement("strong");
      b.textContent = m[1];
      nodes.push(b);
    } else if (m[2] !== undefined) {
      const c = document.createElement("code");
      c.textContent = m[2];
      nodes.push(c);
    } else if (m[3] !== undefined && m[4] !== undefined) {
      const a = document.createElement("a");
      a.href = m[4];
      a.rel = "noopener";
      a.textContent = m[3];
      nodes.push(a);
    }
    last = at + m[0].length;
  }
  if (last < text.length) nodes.push(document.createTextNode(text.slice(last)));
  el.replaceChildren(...nodes);
}
