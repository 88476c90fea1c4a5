// Builds the client into a Django static folder so that `make run` needs only Python.
// Fixed file names keep the committed assets' diffs readable (WhiteNoise serves them).
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";
import { renderMarkdown } from "./src/markdown";
import { appShell } from "./appShell";

const RULE_BOOK = fileURLToPath(new URL("../docs/rules.md", import.meta.url));

/** `virtual:rule-book`: the repository's rule book (docs/rules.md) rendered to HTML at build
 * time, with its headings, so the "How to play" panel always says what the rule book says.
 * Its headings sit under the panel's <h2>: # becomes <h3>. */
function ruleBook(): Plugin {
  const id = "virtual:rule-book";
  return {
    name: "rule-book",
    resolveId: (source) => (source === id ? `\0${id}` : null),
    load(loaded) {
      if (loaded !== `\0${id}`) return null;
      if (!existsSync(RULE_BOOK)) this.error(`${RULE_BOOK} is missing: the "How to play" panel is the rule book`);
      this.addWatchFile(RULE_BOOK);
      return `export default ${JSON.stringify(renderMarkdown(readFileSync(RULE_BOOK, "utf8"), "rules-", 2))};`;
    },
  };
}

export default defineConfig({
  base: "/static/client/",
  plugins: [ruleBook(), appShell()],
  build: {
    outDir: "../games/static/client",
    emptyOutDir: true,
    target: "es2020",
    sourcemap: false,
    rollupOptions: {
      // The service worker (src/sw.ts) is an entry of its own, built to sw.js beside app.js:
      // one classic script (it imports nothing the page also imports, so no shared chunk).
      input: {
        index: fileURLToPath(new URL("./index.html", import.meta.url)),
        sw: fileURLToPath(new URL("./src/sw.ts", import.meta.url)),
      },
      output: {
        entryFileNames: (chunk) => (chunk.name === "sw" ? "sw.js" : "app.js"),
        chunkFileNames: "[name].js",
        assetFileNames: "[name][extname]",
      },
    },
  },
  server: {
    // `npm run dev` proxies the API (and its sockets) to the server on port 8000.
    proxy: { "/api": { target: "http://127.0.0.1:8000", ws: true } },
  },
});
