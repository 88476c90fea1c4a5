// Builds the client into a Django static folder so that `make run` needs only Python.
// Fixed file names keep the committed assets' diffs readable (WhiteNoise serves them).
import { defineConfig } from "vite";

export default defineConfig({
  base: "/static/client/",
  build: {
    outDir: "../games/static/client",
    emptyOutDir: true,
    target: "es2020",
    sourcemap: false,
    rollupOptions: {
      output: {
        entryFileNames: "app.js",
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
