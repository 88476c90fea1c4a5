// A small Markdown renderer for the rule book (docs/rules.md), run at build time by the Vite
// plugin in vite.config.ts. It knows headings, paragraphs, lists (nested), block quotes, code,
// tables, rules, emphasis and links, and nothing else: every character of the source is
// escaped, raw HTML included, and a link is kept only when it is http(s), mailto or an anchor
// of the same document, so what it returns is safe to insert as HTML.

export interface Heading {
  level: number;
  text: string;
  id: string;
}

export interface Rendered {
  html: string;
  headings: Heading[];
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
export function slug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** Inline Markdown to HTML: code spans, **strong**, *emphasis*, [links](url). */
export function inline(text: string, anchorPrefix = ""): string {
  const parts = text.split(/(`+)([\s\S]*?[^`])\1(?!`)/);
  let out = "";
  for (let i = 0; i < parts.length; i += 3) {
    out += spans(parts[i], anchorPrefix);
    if (i + 2 < parts.length) out += `<code>${escapeHtml(parts[i + 2].trim())}</code>`;
  }
  return out;
}

function spans(text: string, anchorPrefix: string): string {
  // Backslash escapes are kept aside so that "\*" stays a star.
  const escaped: string[] = [];
  let s = text.replace(/\\([\\`*_{}[\]()#+\-.!|>])/g, (_m, ch: string) => {
    escaped.push(ch);
    return `\u0000${escaped.length - 1}\u0000`;
  });
  const links: string[] = [];
  s = s.replace(/\[([^\]]+)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g, (_m, label: string, url: string) => {
    links.push(link(label, url, anchorPrefix));
    return `\u0001${links.length - 1}\u0001`;
  });
  s = s.replace(/<(https?:\/\/[^>\s]+)>/g, (_m, url: string) => {
    links.push(link(url, url, anchorPrefix));
    return `\u0001${links.length - 1}\u0001`;
  });
  s = escapeHtml(s);
  s = s.replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, "<strong>$2</strong>");
  s = s.replace(/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?!\w)/g, "$1<em>$2</em>");
  s = s.replace(/(^|[^\w])_(?=\S)([^_]*?\S)_(?!\w)/g, "$1<em>$2</em>");
  s = s.replace(/\u0001(\d+)\u0001/g, (_m, n: string) => links[Number(n)]);
  return s.replace(/\u0000(\d+)\u0000/g, (_m, n: string) => escapeHtml(escaped[Number(n)]));
}

function link(label: string, url: string, anchorPrefix: string): string {
  const text = spans(label, anchorPrefix);
  if (/^(https?:|mailto:)/i.test(url)) {
    return `<a href="${escapeHtml(url)}" rel="noopener noreferrer" target="_blank">${text}</a>`;
  }
  if (url.startsWith("#") && url.length > 1) {
    const id = anchorPrefix + slug(decodeURIComponent(url.slice(1)));
    return `<a href="#${escapeHtml(id)}" data-anchor="${escapeHtml(id)}">${text}</a>`;
  }
  return text; // a path in the repository: not reachable from the page
}

const FENCE = /^\s*(```|~~~)/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const RULE = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

function isBlockStart(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || ITEM.test(line) || QUOTE.test(line);
}

function cells(row: string): string[] {
  let s = row.trim();
  if (s.startsWith("|")) s = s.slice(1);
  if (s.endsWith("|") && !s.endsWith("\\|")) s = s.slice(0, -1);
  return s.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

function indentOf(line: string): number {
  return (line.match(/^\s*/)?.[0] ?? "").replace(/\t/g, "    ").length;
}

class Renderer {
  headings: Heading[] = [];
  private used = new Map<string, number>();

  constructor(
    private readonly prefix: string,
    private readonly offset: number,
  ) {}

  blocks(lines: string[], tight = false): string {
    const out: string[] = [];
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      if (!line.trim()) {
        i++;
        continue;
      }
      const fence = line.match(FENCE);
      if (fence) {
        const body: string[] = [];
        i++;
        while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
        i++;
        // Focusable: a wide example scrolls sideways, and the keyboard must reach it.
        out.push(`<pre tabindex="0"><code>${escapeHtml(body.join("\n"))}</code></pre>`);
        continue;
      }
      const heading = line.match(HEADING);
      if (heading) {
        out.push(this.heading(heading[1].length, heading[2]));
        i++;
        continue;
      }
      if (RULE.test(line)) {
        out.push("<hr>");
        i++;
        continue;
      }
      if (line.includes("|") && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1]) && lines[i + 1].includes("-")) {
        const head = cells(line);
        const rows: string[][] = [];
        i += 2;
        while (i < lines.length && lines[i].trim() && lines[i].includes("|")) rows.push(cells(lines[i++]));
        out.push(this.table(head, rows));
        continue;
      }
      if (QUOTE.test(line)) {
        const body: string[] = [];
        while (i < lines.length && lines[i].trim() && QUOTE.test(lines[i])) body.push(lines[i++].match(QUOTE)![1]);
        out.push(`<blockquote>${this.blocks(body)}</blockquote>`);
        continue;
      }
      if (ITEM.test(line)) {
        i = this.list(lines, i, out);
        continue;
      }
      const para: string[] = [];
      while (i < lines.length && lines[i].trim() && !(para.length && isBlockStart(lines[i]))) para.push(lines[i++].trim());
      const text = inline(para.join(" "), this.prefix);
      out.push(tight ? text : `<p>${text}</p>`);
    }
    return out.join("\n");
  }

  /** A list from line ``start``; returns the index after it. */
  private list(lines: string[], start: number, out: string[]): number {
    const first = lines[start].match(ITEM)!;
    const base = indentOf(first[1]);
    const ordered = /\d/.test(first[2]);
    const items: string[][] = [];
    let loose = false;
    let i = start;
    while (i < lines.length) {
      const m = lines[i].match(ITEM);
      if (!m || indentOf(m[1]) !== base || /\d/.test(m[2]) !== ordered) break;
      const contentIndent = base + m[2].length + 1;
      const body = [m[3]];
      i++;
      while (i < lines.length) {
        const next = lines[i];
        if (!next.trim()) {
          // A blank line continues the item only if indented content follows.
          let j = i + 1;
          while (j < lines.length && !lines[j].trim()) j++;
          if (j < lines.length && indentOf(lines[j]) >= contentIndent) {
            body.push("");
            loose = loose || !ITEM.test(lines[j]);
            i = j;
            continue;
          }
          const sibling = j < lines.length ? lines[j].match(ITEM) : null;
          if (sibling && indentOf(sibling[1]) === base && /\d/.test(sibling[2]) === ordered) {
            loose = true;
            i = j;
          }
          break;
        }
        const nested = next.match(ITEM);
        if (nested && indentOf(nested[1]) <= base) break;
        if (!nested && indentOf(next) < contentIndent && isBlockStart(next)) break;
        body.push(indentOf(next) >= contentIndent ? next.slice(Math.min(contentIndent, indentOf(next))) : next.trim());
        i++;
      }
      items.push(body);
    }
    const tag = ordered ? "ol" : "ul";
    const startAttr = ordered && parseInt(first[2], 10) !== 1 ? ` start="${parseInt(first[2], 10)}"` : "";
    out.push(`<${tag}${startAttr}>${items.map((body) => `<li>${this.blocks(body, !loose)}</li>`).join("")}</${tag}>`);
    return i;
  }

  private heading(level: number, text: string): string {
    const base = this.prefix + (slug(text.replace(/[`*_]/g, "")) || "section");
    const seen = this.used.get(base) ?? 0;
    this.used.set(base, seen + 1);
    const id = seen ? `${base}-${seen}` : base;
    const plain = text.replace(/\[([^\]]+)\]\([^)]*\)/g, "$1").replace(/[`*_]/g, "");
    this.headings.push({ level, text: plain, id });
    const tag = Math.min(6, level + this.offset);
    return `<h${tag} id="${escapeHtml(id)}">${inline(text, this.prefix)}</h${tag}>`;
  }

  private table(head: string[], rows: string[][]): string {
    const th = head.map((c) => `<th scope="col">${inline(c, this.prefix)}</th>`).join("");
    const body = rows
      .map((r) => `<tr>${head.map((_h, k) => `<td>${inline(r[k] ?? "", this.prefix)}</td>`).join("")}</tr>`)
      .join("");
    return `<div class="table-scroll" tabindex="0" role="region" aria-label="${escapeHtml(head.join(", "))}"><table><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table></div>`;
  }
}

/** Markdown to safe HTML; heading ids (and same-document links) get ``prefix``, and headings
 * go ``offset`` levels down (the document's # is an <h2> under a page's <h1>); ``headings``
 * keeps the document's own levels. */
export function renderMarkdown(source: string, prefix = "", offset = 0): Rendered {
  const r = new Renderer(prefix, offset);
  const html = r.blocks(source.replace(/\r\n?/g, "\n").split("\n"));
  return { html, headings: r.headings };
}
