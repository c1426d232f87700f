// The pages' bundles: each page's module entry (static/js/<page>.js, ~35 small modules between them) built by esbuild
// into one minified ES module, static/dist/<page>.js (+ its sourcemap), so a phone asks for one script instead of a
// waterfall of imports. The outputs are committed: the gateway and its image need no node at run time.
//
//   node build.mjs            build; writes only the files that changed (./turf bundle)
//   node build.mjs --check    build in memory and compare with the committed files: exit 1 when they differ (CI)
//   node build.mjs --quiet    no summary when nothing changed (./turf test and ./turf up before they start)
//
// The entries are the pages' own: every `<script type="module" src="/static/dist/<page>.js…">` in static/*.html. The
// build also writes, in each page, its bundle's content hash into that URL (`?v=<12 hex>`), and each stylesheet's,
// classic script's (Leaflet) and image's into theirs: the gateway serves a /static file asked for with its current
// hash as immutable (api/pages.py), so a second visit asks for the page alone, and a new build is a new URL.
// static/dist/SOURCES.sha256 lists every input with its hash, for `sha256sum -c` on a machine without node (./turf
// tells a developer whose static/js or css no longer matches the bundles and pages).
import * as esbuild from "esbuild";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");
const STATIC = path.join(ROOT, "gateway/src/turf_gateway/static");
const DIST = path.join(STATIC, "dist");
const TAG = /(<script type="module" src="\/static\/dist\/)([a-z0-9_-]+)\.js(?:\?v=[0-9a-f]*)?(">)/g;
// the pages' other files: stylesheets and classic scripts (Leaflet), which hold up the paint or the script, and the
// icon and images; each named by its own hash the same way
const ASSET = /(<link rel="(?:stylesheet|icon)" href="|<script src="|<img src=")\/static\/([^"?]+)(?:\?v=[0-9a-f]*)?(")/g;
const args = new Set(process.argv.slice(2));
const check = args.has("--check");
const quiet = args.has("--quiet");

const sha256 = (data) => createHash("sha256").update(data).digest("hex");
const rel = (p) => path.relative(ROOT, p);

const pages = readdirSync(STATIC).filter((f) => f.endsWith(".html")).sort()
  .map((f) => ({ file: path.join(STATIC, f), html: readFileSync(path.join(STATIC, f), "utf8") }));
const entries = [...new Set(pages.flatMap((p) => [...p.html.matchAll(TAG)].map((m) => m[2])))].sort();
for (const e of entries) {
  if (!existsSync(path.join(STATIC, "js", `${e}.js`))) {
    console.error(`bundle: a page loads /static/dist/${e}.js but there is no static/js/${e}.js to build it from`);
    process.exit(1);
  }
}

// some modules import by the URL the browser sees ("/static/js/api.js"): the same file here
const staticUrls = {
  name: "static-urls",
  setup(b) {
    b.onResolve({ filter: /^\/static\// }, (a) => ({ path: path.join(STATIC, a.path.slice("/static/".length)) }));
  },
};

const result = await esbuild.build({
  plugins: [staticUrls],
  absWorkingDir: ROOT,
  entryPoints: entries.map((e) => path.join(STATIC, "js", `${e}.js`)),
  outdir: DIST,
  entryNames: "[name]",
  bundle: true,
  format: "esm",
  minify: true,
  // the browsers the pages already required (ES modules, optional chaining, ??=): nothing is down-levelled
  target: "es2021",
  // linked, without the sources' text: the modules themselves stay served under /static/js for the devtools
  sourcemap: "linked",
  sourcesContent: false,
  legalComments: "none",
  charset: "utf8",
  metafile: true,
  write: false,
  logLevel: "warning",
}).catch(() => process.exit(1));   // esbuild has printed what it could not build

// what the build wants on disk: path → contents
const want = new Map();
const hashes = {};
for (const out of result.outputFiles) {
  want.set(out.path, out.contents);
  if (out.path.endsWith(".js")) hashes[path.basename(out.path, ".js")] = sha256(out.contents).slice(0, 12);
}
const assets = new Set();
for (const p of pages) {
  const html = p.html.replace(TAG, (_, head, name, tail) => `${head}${name}.js?v=${hashes[name]}${tail}`)
    .replace(ASSET, (_, head, file, tail) => {
      const at = path.join(STATIC, file);
      if (!existsSync(at)) {
        console.error(`bundle: ${rel(p.file)} names /static/${file}, which does not exist`);
        process.exit(1);
      }
      assets.add(rel(at));
      return `${head}/static/${file}?v=${sha256(readFileSync(at)).slice(0, 12)}${tail}`;
    });
  want.set(p.file, Buffer.from(html));
}

const inputs = [...Object.keys(result.metafile.inputs), ...assets, rel(import.meta.filename),
  "gateway/frontend/package-lock.json"].sort();
want.set(path.join(DIST, "SOURCES.sha256"),
  Buffer.from(inputs.map((f) => `${sha256(readFileSync(path.join(ROOT, f)))}  ${f}\n`).join("")));

const have = existsSync(DIST) ? readdirSync(DIST).map((f) => path.join(DIST, f)) : [];
const extra = have.filter((f) => !want.has(f));
const stale = [...want].filter(([f, data]) => !existsSync(f) || !readFileSync(f).equals(Buffer.from(data)))
  .map(([f]) => f);

if (check) {
  if (stale.length || extra.length) {
    console.error("bundle: the committed bundles are not what static/js builds (run ./turf bundle and commit):");
    for (const f of stale) console.error(`  differs: ${rel(f)}`);
    for (const f of extra) console.error(`  not built by any page: ${rel(f)}`);
    process.exit(1);
  }
  console.log(`bundle: ${entries.length} bundles up to date (${entries.join(", ")})`);
  process.exit(0);
}

mkdirSync(DIST, { recursive: true });
for (const f of stale) writeFileSync(f, want.get(f));
for (const f of extra) rmSync(f);
if (stale.length || extra.length || !quiet) {
  for (const e of entries) {
    const js = want.get(path.join(DIST, `${e}.js`));
    console.log(`bundle: static/dist/${e}.js ${(js.length / 1024).toFixed(1)} KB`);
  }
  console.log(`bundle: ${stale.length + extra.length} file(s) rewritten`
    + (stale.length ? `: ${stale.map(rel).join(", ")}` : ""));
}
