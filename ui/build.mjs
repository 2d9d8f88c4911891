// Builds ui/card.html: the card's TypeScript and CSS bundled with esbuild
// and inlined into src/card.html, so the result is one self-contained
// document (no request to any origin) that Go embeds.
//
//   node build.mjs                 writes card.html
//   node build.mjs --out FILE      writes FILE instead (the Go test compares it to card.html)
//   node build.mjs --check         writes nothing; fails when card.html is not what src/ builds
//   node build.mjs --sizes FILE    also writes, as JSON, how many bytes of the card are
//                                  ours (src/) and how many each package brings (the Go
//                                  test holds them to a budget)
//
// The output depends only on the sources and the pinned packages: no
// timestamps, no absolute paths, so the same tree always builds the same bytes.

import { build } from "esbuild";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

function arg(name) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const out = resolve(arg("--out") ?? join(here, "card.html"));

// What the card does not use of its packages, left out of the bundle. Each
// edit must find its text: a package upgrade that moves it stops the build
// rather than silently bringing the bytes back.
//
// zod: the SDK imports it whole (`import * as z from "zod/v4"`), and the
// namespace object keeps every export alive: all of its ~50 locales (the
// card speaks the one zod error language it has, English, and shows no zod
// message to the person anyway), z.compile (code generation, which the
// card's CSP forbids and jitless.ts turns off) and z.fromJSONSchema. The
// schemas, parsing and the English messages stay, so every protocol message
// is validated as before.
const zodTrims = [
  { file: /zod[\\/]v4[\\/]locales[\\/]index\.js$/, whole: 'export { default as en } from "./en.js";\n' },
  { file: /zod[\\/]v4[\\/]core[\\/]index\.js$/, cut: ['export * from "./compile.js";\n'] },
  {
    file: /zod[\\/]v4[\\/]classic[\\/]external\.js$/,
    cut: [" INVALID,", " compile, withParser, ZodCompileAsyncError, ZodCompileUnsupportedError,", 'export { fromJSONSchema } from "./from-json-schema.js";\n'],
  },
];

// The MCP SDK packages declare no "sideEffects", so esbuild keeps every
// module they import even when nothing of it is used: the client's OAuth,
// HTTP and SSE transports and its JSON Schema validators, none of which the
// card (which only speaks postMessage, through ext-apps' App) reaches.
// Their modules only define things; a module the card uses is kept whole.
const sdkPure = /node_modules[\\/]@modelcontextprotocol[\\/](client|core)[\\/]/;

const trim = {
  name: "trim",
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (a) => {
      if (a.pluginData?.trim) return undefined;
      const r = await b.resolve(a.path, { kind: a.kind, importer: a.importer, resolveDir: a.resolveDir, pluginData: { trim: true } });
      return sdkPure.test(r.path) ? { ...r, sideEffects: false } : r;
    });
    for (const t of zodTrims) {
      b.onLoad({ filter: t.file }, async (a) => {
        let text = t.whole ?? (await readFile(a.path, "utf8"));
        for (const c of t.cut ?? []) {
          if (!text.includes(c)) throw new Error(`build.mjs: ${a.path} no longer contains ${JSON.stringify(c)}: check what zod changed`);
          text = text.replace(c, "");
        }
        return { contents: text, loader: "js", resolveDir: dirname(a.path) };
      });
    }
  },
};

const common = {
  absWorkingDir: here,
  bundle: true,
  minify: true,
  write: false,
  legalComments: "none",
  charset: "utf8",
  logLevel: "warning",
};

const [js, css] = await Promise.all([
  build({ ...common, entryPoints: ["src/main.ts"], format: "esm", target: "es2022", platform: "browser", metafile: true, plugins: [trim] }),
  build({ ...common, entryPoints: ["src/style.css"], target: "chrome100" }),
]);

const script = js.outputFiles[0].text.trim();
const style = css.outputFiles[0].text.trim();

// Inline script and style end at the first "</script" or "</style", and
// "<!--" switches the HTML parser into a mode where "</script>" no longer
// ends the script. None occurs today; rewriting one inside a regular
// expression could change its meaning, so the build stops instead.
if (/<\/script|<!--/i.test(script)) throw new Error("the bundle contains </script or <!--: it cannot be inlined as is");
if (/<\/style/i.test(style)) throw new Error("the stylesheet contains </style: it cannot be inlined as is");

const template = await readFile(join(here, "src/card.html"), "utf8");
if (!template.includes("/*SCRIPT*/") || !template.includes("/*STYLE*/")) {
  throw new Error("src/card.html must contain /*STYLE*/ and /*SCRIPT*/");
}
// Functions, not strings, as replacements: "$&" in the bundle must stay as is.
const html = template.replace("/*STYLE*/", () => style).replace("/*SCRIPT*/", () => script);

if (/\b(src|href)\s*=\s*["']?(https?:)?\/\//i.test(html.replace(/<script[\s\S]*<\/script>/i, ""))) {
  throw new Error("card.html would load something from another origin");
}

const sizesFile = arg("--sizes");
if (sizesFile) {
  // Bytes each source file leaves in the minified script, summed for our
  // own code (src/, plus the stylesheet) and per package.
  const inputs = Object.values(js.metafile.outputs)[0].inputs;
  const sizes = { total: Buffer.byteLength(html), ours: Buffer.byteLength(style), packages: {} };
  for (const [path, { bytesInOutput }] of Object.entries(inputs)) {
    if (path.startsWith("src/")) {
      sizes.ours += bytesInOutput;
      continue;
    }
    const pkg = path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? path;
    sizes.packages[pkg] = (sizes.packages[pkg] ?? 0) + bytesInOutput;
  }
  await writeFile(resolve(sizesFile), JSON.stringify(sizes, null, 2) + "\n");
}

if (process.argv.includes("--check")) {
  const committed = await readFile(join(here, "card.html"), "utf8").catch(() => "");
  if (committed !== html) {
    console.error("card.html is not what src/ builds: run `npm run build` and commit card.html");
    process.exit(1);
  }
  console.log("card.html is up to date");
} else {
  await writeFile(out, html);
  console.log(`wrote ${out} (${Buffer.byteLength(html)} bytes)`);
}
