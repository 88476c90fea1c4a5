// The installable app at build time (a Vite plugin): the icons (icons.ts) and the web app
// manifest are emitted beside the client's files, and the service worker (src/sw.ts, built to
// sw.js) is told which files make the app shell and a version that changes with any of them,
// so that a new build installs a new worker, which caches the new shell and drops the old one.
//
// Django serves the manifest at /manifest.webmanifest and the worker at /sw.js
// (canasta_service/client.py): at the root, the worker's scope covers the page at /.
import { createHash } from "node:crypto";
import type { Plugin } from "vite";
import { ICONS, iconPng } from "./icons";

export const BASE = "/static/client/";
export const MANIFEST_URL = "/manifest.webmanifest";

export const THEME = "#0f5132";

/** The manifest (the colours are the felt's). */
export function manifest(): Record<string, unknown> {
  return {
    id: "/",
    name: "Canasta",
    short_name: "Canasta",
    description: "Play Canasta with friends and bots, live or by correspondence.",
    lang: "en",
    start_url: "/",
    scope: "/",
    display: "standalone",
    orientation: "any",
    background_color: THEME,
    theme_color: THEME,
    categories: ["games"],
    icons: ICONS.map((icon) => ({
      src: `${BASE}${icon.file}`,
      sizes: `${icon.size}x${icon.size}`,
      type: "image/png",
      purpose: icon.maskable ? "maskable" : "any",
    })),
  };
}

export function appShell(): Plugin {
  return {
    name: "app-shell",
    apply: "build",
    enforce: "post",
    generateBundle(_options, bundle) {
      for (const icon of ICONS) this.emitFile({ type: "asset", fileName: icon.file, source: iconPng(icon) });
      this.emitFile({ type: "asset", fileName: "manifest.webmanifest", source: `${JSON.stringify(manifest(), null, 2)}\n` });

      const worker = bundle["sw.js"];
      if (!worker || worker.type !== "chunk") this.error("the service worker (sw.js) is missing from the build");
      // The shell: the page (/), the manifest (/manifest.webmanifest) and every built file but
      // the worker itself and the copies of the page and the manifest under /static/client/.
      const files = Object.keys(bundle)
        .filter((name) => !["sw.js", "index.html", "manifest.webmanifest"].includes(name))
        .sort();
      const hash = createHash("sha256");
      for (const name of files) {
        const item = bundle[name];
        hash.update(name);
        hash.update(item.type === "chunk" ? item.code : item.source);
      }
      const html = bundle["index.html"];
      if (html && html.type === "asset") hash.update(html.source);
      const shell = ["/", MANIFEST_URL, ...files.map((name) => `${BASE}${name}`)];
      worker.code = worker.code
        .replace(/__SHELL_FILES__/g, JSON.stringify(shell))
        .replace(/__SHELL_VERSION__/g, JSON.stringify(hash.digest("hex").slice(0, 16)));
    },
  };
}
