import { describe, expect, it } from "vitest";
import { inline, renderMarkdown, slug } from "../src/markdown";

describe("markdown", () => {
  it("renders headings with ids and lists them", () => {
    const r = renderMarkdown("# Canasta\n\n## Going out\n\nText.\n\n## Going out", "rules-", 1);
    expect(r.html).toContain('<h2 id="rules-canasta">Canasta</h2>');
    expect(r.html).toContain('<h3 id="rules-going-out">Going out</h3>');
    expect(r.html).toContain('<h3 id="rules-going-out-1">Going out</h3>');
    expect(r.headings.map((x) => [x.level, x.id])).toEqual([
      [1, "rules-canasta"],
      [2, "rules-going-out"],
      [2, "rules-going-out-1"],
    ]);
  });
  it("escapes every raw character: no HTML gets through", () => {
    const r = renderMarkdown('<script>alert(1)</script>\n\n<img src=x onerror="y">');
    expect(r.html).not.toContain("<script");
    expect(r.html).not.toContain("<img");
    expect(r.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });
  it("keeps only safe links", () => {
    expect(inline("[a](https://example.org/x?a=1&b=2)")).toBe(
      '<a href="https://example.org/x?a=1&amp;b=2" rel="noopener noreferrer" target="_blank">a</a>',
    );
    expect(inline("[bad](javascript:alert.call)")).toBe("bad");
    expect(inline("[bad](data:text/html;base64,PHNjcmlwdD4=)")).toBe("bad");
    expect(inline('[q](https://x.org/"onmouseover="y)')).not.toContain('"onmouseover');
    expect(inline("[see scoring](#Scoring-Table)", "rules-")).toBe(
      '<a href="#rules-scoring-table" data-anchor="rules-scoring-table">see scoring</a>',
    );
    expect(inline("[the engine](../games/engine/README.md)")).toBe("the engine");
  });
  it("renders emphasis and code", () => {
    expect(inline("a **wild** card, *frozen* pile, `2C` and 2*3*4")).toBe(
      "a <strong>wild</strong> card, <em>frozen</em> pile, <code>2C</code> and 2*3*4",
    );
    expect(inline("`<b>`")).toBe("<code>&lt;b&gt;</code>");
    expect(inline("a \\*star\\*")).toBe("a *star*");
  });
  it("renders nested lists, tables, quotes and code blocks", () => {
    const md = [
      "- one",
      "- two",
      "  - two a",
      "  - two b",
      "",
      "1. first",
      "2. second",
      "",
      "| Card | Points |",
      "| --- | ---: |",
      "| Joker | 50 |",
      "",
      "> A note",
      "",
      "```",
      "a < b",
      "```",
      "",
      "---",
    ].join("\n");
    const html = renderMarkdown(md).html;
    expect(html).toContain("<ul><li>one</li><li>two\n<ul><li>two a</li><li>two b</li></ul></li></ul>");
    expect(html).toContain("<ol><li>first</li><li>second</li></ol>");
    expect(html).toContain('<th scope="col">Card</th><th scope="col">Points</th>');
    expect(html).toContain("<td>Joker</td><td>50</td>");
    expect(html).toContain("<blockquote><p>A note</p></blockquote>");
    expect(html).toContain('<pre tabindex="0"><code>a &lt; b</code></pre>');
    expect(html).toContain("<hr>");
  });
  it("joins a paragraph's lines and keeps loose list items as paragraphs", () => {
    expect(renderMarkdown("one\ntwo\n\nthree").html).toBe("<p>one two</p>\n<p>three</p>");
    expect(renderMarkdown("- a\n\n- b").html).toBe("<ul><li><p>a</p></li><li><p>b</p></li></ul>");
  });
  it("makes GitHub's anchors", () => {
    expect(slug("Scoring: the bonuses (and penalties)")).toBe("scoring-the-bonuses-and-penalties");
  });
});
