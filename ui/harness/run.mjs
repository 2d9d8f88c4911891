// Drives the card in headless Chromium through the test host (host.ts),
// one scenario at a time, and checks what a person would see and what the
// card sends to the host.
//
//   node harness/run.mjs --card card.html --scenarios scenarios.json \
//     --out ../test-artifacts/ui --results results.json [--chromium /usr/bin/chromium]
//
// Each scenario (written by the Go test from real server results) says
// what must be visible, what must not, and which click must send which
// request. Every scenario is also checked for: a reported size that fits
// the content, keyboard order and visible focus, contrast in both themes,
// no overflow on a 360-pixel screen, and no console error or CSP
// violation. Results go to --results as JSON, one entry per scenario with
// its failures; the exit code is 1 when any scenario failed.
//
// The host page emulates a real host's themes: it declares its CSS
// color-scheme (as the MCP Inspector and Claude do), and shows each card
// in light and dark twice, without style variables (the card's own
// palette) and with a host's set of them. On a dark host, a screenshot
// with the card's text made transparent must have no light pixel: a light
// block (the frame's opaque backdrop, a white surface) fails. At 320, 360,
// 480 and 600 pixels nothing may scroll sideways and no word may break
// across lines, and every date shown is in the card's one style. --only NAME
// runs one scenario; HARNESS_DEBUG=1 prints the time of each step.

import { build } from "esbuild";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
}

const cardPath = resolve(arg("--card", join(here, "..", "card.html")));
const scenariosPath = resolve(arg("--scenarios"));
const outDir = resolve(arg("--out", join(here, "..", "..", "test-artifacts", "ui")));
const resultsPath = resolve(arg("--results", join(outDir, "results.json")));
const executablePath = arg("--chromium", process.env.CHROMIUM || "/usr/bin/chromium");
const only = arg("--only");

// --width sets the host's width for the card (640 by default, a chat
// column); the directory's screenshots are taken at 1,000.
const WIDTH = Number(arg("--width", "640"));
const NARROW = [320, 360, 480, 600];
const PAGE_BG = { light: "#f5f4ef", dark: "#262624" };
// A host's style variables (MCP Apps hostContext.styles.variables), in the
// manner of Claude's: what a card that takes its colours from the host gets.
const HOST_VARS = {
  light: {
    "--color-background-primary": "#ffffff",
    "--color-background-secondary": "#f5f4ef",
    "--color-background-tertiary": "#efeee8",
    "--color-background-info": "#e8f0fc",
    "--color-background-success": "#e9f5ec",
    "--color-background-warning": "#fcf1de",
    "--color-background-danger": "#fcecea",
    "--color-text-primary": "#1f1e1d",
    "--color-text-secondary": "#3d3d3a",
    "--color-text-tertiary": "#5e5d59",
    "--color-text-info": "#1a4fb4",
    "--color-text-success": "#1c6634",
    "--color-text-warning": "#7f4600",
    "--color-text-danger": "#a8261b",
    "--color-border-primary": "#d9d7cf",
    "--color-border-secondary": "#e8e6de",
    "--color-ring-primary": "#2c6fd6",
  },
  dark: {
    "--color-background-primary": "#30302e",
    "--color-background-secondary": "#262624",
    "--color-background-tertiary": "#1f1e1d",
    "--color-background-info": "#1d2a42",
    "--color-background-success": "#17301f",
    "--color-background-warning": "#3a2a10",
    "--color-background-danger": "#3d1c1a",
    "--color-text-primary": "#faf9f5",
    "--color-text-secondary": "#c2c0b6",
    "--color-text-tertiary": "#a6a39a",
    "--color-text-info": "#94b8ff",
    "--color-text-success": "#7ddc9c",
    "--color-text-warning": "#f5c26b",
    "--color-text-danger": "#ff9b91",
    "--color-border-primary": "#4a4945",
    "--color-border-secondary": "#3d3c38",
    "--color-ring-primary": "#6aa5ff",
  },
};
// Relative luminance above which a pixel counts as light on a dark host
// (#bcbcbc is 0.5; white is 1; the dark theme's accent, #8fb0ff, 0.44).
const LIGHT = 0.5;

const card = await readFile(cardPath, "utf8");
const scenarios = JSON.parse(await readFile(scenariosPath, "utf8")).filter((s) => !only || s.name === only);
await mkdir(outDir, { recursive: true });

const hostScript = (
  await build({
    entryPoints: [join(here, "host.ts")],
    bundle: true,
    format: "iife",
    write: false,
    target: "es2022",
    logLevel: "warning",
  })
).outputFiles[0].text;

const hostPage = `<!doctype html><html><head><meta charset="utf-8"><title>test host</title><style>
  html { background: ${PAGE_BG.light}; color-scheme: light; } html[data-theme=dark] { background: ${PAGE_BG.dark}; color-scheme: dark; }
  body { margin: 0; } #slot { display: inline-block; padding: 16px; }
  iframe { border: 0; display: block; background: transparent; }
</style></head><body><div id="slot"></div><script>${hostScript.replace(/<\/script/gi, "<\\/script")}</script></body></html>`;

const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--font-render-hinting=none", "--force-color-profile=srgb"],
});

// One page for every scenario: each starts from a fresh host document.
const context = await browser.newContext({ viewport: { width: WIDTH + 32, height: 900 }, deviceScaleFactor: 1, reducedMotion: "reduce" });
// Test-only: report CSP violations in every frame, the card's too.
await context.addInitScript(() => {
  document.addEventListener("securitypolicyviolation", (e) => {
    console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`);
  });
});
const page = await context.newPage();
const console_ = [];
page.on("console", (m) => {
  if (m.type() === "error" || m.type() === "warning") console_.push(`${m.type()}: ${m.text()}`);
});
page.on("pageerror", (e) => console_.push(`pageerror: ${e.message}`));

await page.setContent(hostPage);

const results = [];
const started = Date.now();
try {
  for (const s of scenarios) {
    const t0 = Date.now();
    const r = await runScenario(s).catch((err) => ({ name: s.name, failures: [`the run stopped: ${err && err.stack ? err.stack : err}`], screenshots: [], log: [] }));
    r.ms = Date.now() - t0;
    results.push(r);
    console.log(`${r.failures.length ? "FAIL" : "ok  "} ${s.name} (${r.ms} ms)${r.failures.map((f) => `\n      - ${f}`).join("")}`);
  }
} finally {
  await browser.close();
}

await writeFile(resultsPath, JSON.stringify({ ms: Date.now() - started, results }, null, 2));
const failed = results.filter((r) => r.failures.length).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

async function runScenario(s) {
  const failures = [];
  const fail = (msg) => failures.push(msg);
  const screenshots = [];

  console_.length = 0;
  let tick = Date.now();
  const step = (what) => {
    if (process.env.HARNESS_DEBUG) console.log(`    ${what}: ${Date.now() - tick} ms`);
    tick = Date.now();
  };
  try {
    await page.evaluate(([html, sc, w]) => window.harness.start(html, sc, "light", w), [card, s, WIDTH]);
    step("start");
    const frame = await cardFrame(page);
    await settle(frame);
    step("render");

    const exp = s.expect ?? {};
    // 1. What the person sees.
    const text = await visibleText(frame);
    for (const t of exp.texts ?? []) if (!text.includes(norm(t))) fail(`does not show ${JSON.stringify(t)}`);
    for (const t of exp.absent ?? []) if (text.includes(norm(t))) fail(`shows ${JSON.stringify(t)}, which it must not`);
    const names = await buttonNames(frame);
    for (const b of exp.buttons ?? []) if (!names.some((n) => n.startsWith(b))) fail(`has no button ${JSON.stringify(b)} (buttons: ${JSON.stringify(names)})`);
    for (const b of exp.noButtons ?? []) if (names.some((n) => n.startsWith(b))) fail(`offers a button ${JSON.stringify(b)}, which it must not`);
    if (!(await frame.evaluate(() => !!document.querySelector("article.card")))) fail("draws no card");
    for (const f of await dateStyle(frame)) fail(f);

    step("facts");
    // 2. It reports its size.
    const sizes = (await log(page)).filter((e) => e.type === "size-changed");
    if (!sizes.some((e) => e.params.height > 0)) fail("never reported a size with a height");
    await fit(page, frame);
    const reported = (await log(page)).filter((e) => e.type === "size-changed").pop()?.params.height ?? 0;
    const content = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
    if (Math.abs(reported - content) > 2) fail(`the last size it reported (${reported}px high) is not its content's (${content}px)`);

    step("size");
    // 3. Accessibility and contrast, in both themes, with the card's own
    // palette and with the host's variables; no light block on a dark host.
    for (const f of await a11y(frame, "light")) fail(`light: ${f}`);
    for (const f of await focusOrder(page, frame)) fail(f);
    await frame.evaluate(() => document.activeElement?.blur());
    screenshots.push(await shot(page, s.name, "light"));
    for (const [theme, vars, label] of [
      ["dark", null, "dark"],
      ["dark", HOST_VARS.dark, "dark-host"],
      ["light", HOST_VARS.light, "light-host"],
    ]) {
      await page.evaluate(([t, v]) => window.harness.setTheme(t, v ?? undefined), [theme, vars]);
      await frame.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
      if (vars) await frame.waitForFunction((v) => getComputedStyle(document.documentElement).getPropertyValue("--color-text-primary").trim() === v, vars["--color-text-primary"]);
      await page.waitForTimeout(50);
      for (const f of await a11y(frame, theme)) fail(`${label}: ${f}`);
      if (theme === "dark") screenshots.push(await shot(page, s.name, label));
      if (theme === "dark") for (const f of await lightBlocks(page, frame, s.name, label)) fail(`${label}: ${f}`);
    }

    step("themes");
    // 4. Narrow hosts and phones: nothing wider than the frame, no word
    // broken across lines (folded parts opened, so they are checked too).
    const closed = await frame.evaluate(() => {
      const shut = Array.from(document.querySelectorAll("details:not([open])"));
      for (const d of shut) d.open = true;
      window.__shut = shut;
      return shut.length;
    });
    for (const w of NARROW) {
      await page.evaluate((w) => (document.querySelector("iframe").style.width = `${w}px`), w);
      await page.setViewportSize({ width: w + 32, height: 900 });
      await frame.waitForFunction((w) => document.documentElement.clientWidth === w, w, { timeout: 5000 }).catch(() => {});
      await page.waitForTimeout(50);
      for (const f of await narrow(frame)) fail(`at ${w}px: ${f}`);
      if (w === NARROW[0]) screenshots.push(await shot(page, s.name, `${w}px`));
    }
    if (closed) await frame.evaluate(() => window.__shut.forEach((d) => (d.open = false)));
    await page.evaluate((w) => (document.querySelector("iframe").style.width = `${w}px`), WIDTH);
    await page.setViewportSize({ width: WIDTH + 32, height: 900 });

    step("phone");
    // 5. The action: one click, exactly the expected requests.
    if (exp.action) {
      const a = exp.action;
      const before = (await log(page)).length;
      if (a.first) await frame.getByRole("button", { name: a.first, exact: true }).click({ timeout: 5000 });
      if (a.fill) await frame.getByLabel(a.fill.label).fill(a.fill.text);
      await frame.getByRole("button", { name: a.click, exact: true }).click({ timeout: 5000 });
      if (a.after?.length) {
        try {
          await frame.waitForFunction((texts) => {
            const t = document.body.innerText.replace(/\s+/g, " ").toLowerCase();
            return texts.every((x) => t.includes(x.replace(/\s+/g, " ").toLowerCase()));
          }, a.after, { timeout: 5000 });
        } catch {
          fail(`after clicking ${JSON.stringify(a.click)} it does not show ${JSON.stringify(a.after)}; it shows: ${(await visibleText(frame)).slice(0, 400)}`);
        }
      }
      await page.waitForTimeout(150);
      await settle(frame);
      const sent = (await log(page)).slice(before);
      const calls = sent.filter((e) => e.type === "tools/call" && !(a.ignore ?? []).includes(e.params.name));
      const want = a.calls ?? [];
      if (calls.length !== want.length) {
        fail(`clicking ${JSON.stringify(a.click)} sent ${calls.length} tools/call (${calls.map((c) => c.params.name).join(", ")}), want ${want.length}`);
      }
      want.forEach((w, i) => {
        const got = calls[i];
        if (!got) return;
        if (got.params.name !== w.name) fail(`call ${i + 1} went to ${got.params.name}, want ${w.name}`);
        if (!sameJSON(got.params.arguments ?? {}, w.arguments)) {
          fail(`call ${i + 1} to ${w.name} had arguments ${JSON.stringify(got.params.arguments)}, want ${JSON.stringify(w.arguments)}`);
        }
      });
      const messages = sent.filter((e) => e.type === "ui/message");
      if (a.message !== undefined && (messages.length > 0) !== a.message) fail(`ui/message sent ${messages.length} times, want ${a.message ? "one" : "none"}`);
      if (a.message && messages.length) {
        const m = messages[0].params;
        const ok = m.role === "user" && Array.isArray(m.content) && m.content[0]?.type === "text" && (!a.messageIncludes || m.content[0].text.includes(a.messageIncludes));
        if (!ok) fail(`ui/message is not a user text message${a.messageIncludes ? ` that mentions ${JSON.stringify(a.messageIncludes)}` : ""}: ${JSON.stringify(m)}`);
      }
      const links = sent.filter((e) => e.type === "ui/open-link");
      if (a.link !== undefined) {
        if (links.length !== 1 || links[0].params.url !== a.link) fail(`ui/open-link sent ${JSON.stringify(links.map((l) => l.params.url))}, want exactly ${JSON.stringify(a.link)}`);
      }
      const names2 = await buttonNames(frame);
      for (const b of a.noButtonsAfter ?? []) if (names2.some((n) => n.startsWith(b))) fail(`after the click it still offers ${JSON.stringify(b)}`);
      for (const t of a.absentAfter ?? []) if ((await visibleText(frame)).includes(norm(t))) fail(`after the click it shows ${JSON.stringify(t)}, which it must not`);
      for (const f of await dateStyle(frame)) fail(`after the click: ${f}`);
      screenshots.push(await shot(page, s.name, "after"));
    }

    step("action");
    // 6. Shown again: the host replays the original result.
    if (exp.replay) {
      const r = exp.replay;
      const before = (await log(page)).length;
      await page.evaluate(() => window.harness.replay());
      await page.waitForTimeout(300);
      await settle(frame);
      const sent = (await log(page)).slice(before).filter((e) => e.type === "tools/call");
      const reads = sent.filter((e) => e.params.name === r.reads);
      if (r.reads && !reads.length) fail(`shown again, it did not re-read through ${r.reads} (sent: ${JSON.stringify(sent.map((e) => e.params.name))})`);
      if (r.readArgs) for (const e of reads) if (!sameJSON(e.params.arguments ?? {}, r.readArgs)) fail(`it re-read with ${JSON.stringify(e.params.arguments)}, want ${JSON.stringify(r.readArgs)}`);
      const names3 = await buttonNames(frame);
      for (const b of r.noButtons ?? []) if (names3.some((n) => n.startsWith(b))) fail(`shown again after the decision, it still offers ${JSON.stringify(b)}`);
      const t3 = await visibleText(frame);
      for (const t of r.texts ?? []) if (!t3.includes(norm(t))) fail(`shown again, it does not show ${JSON.stringify(t)}; it shows: ${t3.slice(0, 300)}`);
      screenshots.push(await shot(page, s.name, "replayed"));
    }

    step("replay");
    // 7. The host's own look: its style variables and fonts win over the
    // card's fallbacks (checked once; it is the same stylesheet for all).
    if (s === scenarios[0]) {
      await page.evaluate(() =>
        window.harness.setStyles({ "--color-text-primary": "rgb(1, 2, 3)", "--font-sans": "HostFont, serif" }, "/* host fonts */ .host-fonts-applied {}"),
      );
      await page.waitForTimeout(100);
      const got = await frame.evaluate(() => {
        const h1 = document.querySelector("h1");
        const cs = h1 ? getComputedStyle(h1) : null;
        return { color: cs?.color, font: cs?.fontFamily, fonts: !!document.getElementById("__mcp-host-fonts") };
      });
      if (got.color !== "rgb(1, 2, 3)") fail(`the host's --color-text-primary is not used: the title is ${got.color}`);
      if (!String(got.font).startsWith("HostFont")) fail(`the host's --font-sans is not used: the title is in ${got.font}`);
      if (!got.fonts) fail("the host's font CSS (styles.css.fonts) was not applied");
    }

    // 8. Nothing went wrong in the console, and no CSP violation.
    for (const c of console_) {
      if (/^warning:/.test(c) && !/Content Security Policy|Refused|CSP/i.test(c)) continue;
      fail(`console: ${c}`);
    }
    return { name: s.name, failures, screenshots, warnings: console_.filter((c) => c.startsWith("warning:")), log: await log(page) };
  } finally {
    await page.setViewportSize({ width: WIDTH + 32, height: 900 });
  }
}

async function cardFrame(page) {
  const f = await (await page.waitForSelector("#slot iframe")).contentFrame();
  if (!f) throw new Error("the card's frame never appeared");
  return f;
}

// fit waits until the frame is as tall as the card says it is (the host
// resizes it on size-changed), so a screenshot shows all of it.
async function fit(page, frame) {
  for (let i = 0; i < 40; i++) {
    const want = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
    const got = await page.evaluate(() => document.querySelector("#slot iframe").getBoundingClientRect().height);
    if (Math.abs(want - got) <= 2) break;
    await page.waitForTimeout(50);
  }
  await page.waitForTimeout(50);
}

async function settle(frame) {
  await frame.waitForFunction(() => !!document.querySelector("article.card") && !document.querySelector(".card .loading"), null, { timeout: 5000 }).catch(() => {});
}

// Text is compared as read (innerText: only what is shown), ignoring case
// (headings are set in capitals by CSS) and runs of white space.
function norm(t) {
  return String(t).replace(/\s+/g, " ").trim().toLowerCase();
}

async function visibleText(frame) {
  return norm(await frame.evaluate(() => document.body.innerText));
}

async function buttonNames(frame) {
  return frame.evaluate(() =>
    Array.from(document.querySelectorAll("button"))
      .filter((b) => !b.hidden && b.offsetParent !== null)
      .map((b) => {
        const by = b.getAttribute("aria-labelledby");
        const name = by ? by.split(" ").map((id) => document.getElementById(id)?.innerText ?? "").join(" ") : b.getAttribute("aria-label") || b.innerText;
        return name.replace(/\s+/g, " ").trim();
      }),
  );
}

async function log(page) {
  return page.evaluate(() => window.harness.log);
}

function sameJSON(a, b) {
  const canon = (v) => (Array.isArray(v) ? v.map(canon) : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])])) : v);
  return JSON.stringify(canon(a)) === JSON.stringify(canon(b));
}

async function shot(page, name, variant) {
  const file = join(outDir, `${name}-${variant}.png`);
  await capture(page, file);
  return file;
}

// capture screenshots the host's slot (the card and the host page around
// it), to file unless null, and returns the PNG.
async function capture(page, file) {
  const frame = await cardFrame(page);
  await fit(page, frame);
  // A frame is painted only where the viewport is: make it as tall as the
  // card for the picture.
  const size = page.viewportSize();
  const tall = await page.evaluate(() => Math.ceil(document.querySelector("#slot").getBoundingClientRect().bottom) + 16);
  if (tall > size.height) {
    await page.setViewportSize({ width: size.width, height: tall });
    await fit(page, frame);
  }
  const png = await page.locator("#slot").screenshot({ path: file ?? undefined, animations: "disabled" });
  if (tall > size.height) await page.setViewportSize(size);
  return png;
}

// focusOrder walks the card with the Tab key: every control is reached,
// in the order it is read, and shows where the focus is.
async function focusOrder(page, frame) {
  const out = [];
  const n = await frame.evaluate(() => {
    const shown = (el) => !el.disabled && !el.hidden && el.getClientRects().length > 0;
    const els = Array.from(document.querySelectorAll("button, textarea, input, select, summary, a[href], [tabindex]:not([tabindex='-1'])")).filter(shown);
    window.__focusables = els;
    if (els[0]) els[0].focus();
    return els.length;
  });
  for (let i = 0; i < n; i++) {
    if (i > 0) await page.keyboard.press("Tab");
    const got = await frame.evaluate((i) => {
      const el = document.activeElement;
      const idx = window.__focusables.indexOf(el);
      const cs = getComputedStyle(el);
      const ring = (cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== "none";
      return { idx, ring, what: `${el.tagName.toLowerCase()} ${JSON.stringify((el.innerText || el.getAttribute("aria-label") || "").trim().slice(0, 30))}`, want: i };
    }, i);
    if (got.idx !== i) {
      out.push(`Tab ${i} reached ${got.what} (control ${got.idx}), want control ${i} in reading order`);
      break;
    }
    if (process.env.HARNESS_DEBUG) console.log("focus", i, got);
    if (i > 0 && !got.ring) out.push(`the keyboard focus on ${got.what} is not visible`);
  }
  return out;
}

// a11y checks what can be checked without a screen reader: every control
// is a real, named, focusable element; every field has a label; text has
// enough contrast against what is behind it (WCAG AA: 4.5, 3 for large).
async function a11y(frame, theme) {
  const pageBg = PAGE_BG[theme];
  return frame.evaluate((pageBg) => {
    const out = [];
    const parse = (c) => {
      const m = c.match(/rgba?\(([^)]+)\)/);
      if (!m) return null;
      const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
      return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
    };
    const hex = (h) => ({ r: parseInt(h.slice(1, 3), 16), g: parseInt(h.slice(3, 5), 16), b: parseInt(h.slice(5, 7), 16), a: 1 });
    const blend = (top, bottom) => ({ r: top.r * top.a + bottom.r * (1 - top.a), g: top.g * top.a + bottom.g * (1 - top.a), b: top.b * top.a + bottom.b * (1 - top.a), a: 1 });
    const lum = (c) => {
      const f = (v) => {
        v /= 255;
        return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
      };
      return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
    };
    const ratio = (a, b) => {
      const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
      return (x + 0.05) / (y + 0.05);
    };
    const bgOf = (el) => {
      const layers = [];
      for (let e = el; e; e = e.parentElement) {
        const c = parse(getComputedStyle(e).backgroundColor);
        if (c && c.a > 0) layers.push(c);
        if (c && c.a >= 1) break;
      }
      let bg = hex(pageBg);
      for (const l of layers.reverse()) bg = blend(l, bg);
      return bg;
    };
    const visible = (el) => el.offsetParent !== null || el.getClientRects().length > 0;

    for (const b of document.querySelectorAll("button")) {
      if (!visible(b) || b.hidden) continue;
      if (!(b.getAttribute("aria-label") || b.innerText).trim()) out.push(`a button has no name: ${b.outerHTML.slice(0, 80)}`);
      if (b.tabIndex < 0) out.push(`a button cannot be reached with the keyboard: ${b.innerText}`);
    }
    for (const f of document.querySelectorAll("textarea, input, select")) {
      if (!f.labels?.length && !f.getAttribute("aria-label")) out.push(`a field has no label: ${f.outerHTML.slice(0, 80)}`);
    }
    for (const el of document.querySelectorAll("[onclick], div[role=button], span[role=button], a:not([href])")) out.push(`not a real button: ${el.outerHTML.slice(0, 80)}`);

    const seen = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const t = walker.currentNode;
      if (!t.textContent.trim()) continue;
      const el = t.parentElement;
      if (!el || seen.has(el) || !visible(el) || el.closest(".sr-only, button:disabled")) continue;
      seen.add(el);
      const cs = getComputedStyle(el);
      const fg = parse(cs.color);
      if (!fg) continue;
      const bg = bgOf(el);
      const r = ratio(blend(fg, bg), bg);
      const size = parseFloat(cs.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(cs.fontWeight) >= 700);
      const need = large ? 3 : 4.5;
      if (r < need) out.push(`contrast ${r.toFixed(2)} < ${need} for ${JSON.stringify(t.textContent.trim().slice(0, 40))} (${cs.color} on rgb(${Math.round(bg.r)},${Math.round(bg.g)},${Math.round(bg.b)}))`);
    }
    return out;
  }, pageBg);
}

// lightBlocks screenshots the card on a dark host with its text (and
// icons, drawn in currentColor) made transparent, and finds light pixels:
// whatever is left is a surface, a border or the frame's backdrop, and on
// a dark host none of them may be light.
async function lightBlocks(page, frame, name, label) {
  await frame.evaluate(() => {
    const st = document.createElement("style");
    st.id = "__harness-no-text";
    st.textContent =
      "*, *::before, *::after, ::placeholder { color: transparent !important; -webkit-text-fill-color: transparent !important; text-shadow: none !important; caret-color: transparent !important; }";
    document.head.append(st);
  });
  const png = await capture(page, null);
  await frame.evaluate(() => document.getElementById("__harness-no-text")?.remove());
  const found = await page.evaluate(
    async ([b64, limit]) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const c = document.createElement("canvas");
      c.width = img.width;
      c.height = img.height;
      const g = c.getContext("2d");
      g.drawImage(img, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      const lin = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4));
      let n = 0;
      let box = null;
      let sample = "";
      for (let i = 0; i < d.length; i += 4) {
        const l = 0.2126 * lin(d[i]) + 0.7152 * lin(d[i + 1]) + 0.0722 * lin(d[i + 2]);
        if (l <= limit) continue;
        const x = (i / 4) % c.width;
        const y = Math.floor(i / 4 / c.width);
        if (!n) sample = `rgb(${d[i]},${d[i + 1]},${d[i + 2]})`;
        n++;
        box = box ? { x0: Math.min(box.x0, x), y0: Math.min(box.y0, y), x1: Math.max(box.x1, x), y1: Math.max(box.y1, y) } : { x0: x, y0: y, x1: x, y1: y };
      }
      return { n, box, sample, w: c.width, h: c.height };
    },
    [png.toString("base64"), LIGHT],
  );
  if (!found.n) return [];
  const file = join(outDir, `${name}-${label}-surfaces.png`);
  await writeFile(file, png);
  return [
    `${found.n} light pixels outside text on a dark host (first ${found.sample}), from (${found.box.x0},${found.box.y0}) to (${found.box.x1},${found.box.y1}) of ${found.w}x${found.h}: see ${file}`,
  ];
}

// narrow checks the card at the frame's current width: no sideways scroll
// of the document or of any element, nothing past the frame's right edge,
// and no word broken across lines (each run of letters and digits of each
// text node is on one line, by the rectangles of its Range).
async function narrow(frame) {
  return frame.evaluate(() => {
    const out = [];
    const max = document.documentElement.clientWidth;
    const scroll = document.documentElement.scrollWidth;
    if (scroll > max + 1) out.push(`the page scrolls sideways (${scroll}px of content in ${max}px)`);
    const wide = [];
    const what = (el) => `${el.tagName.toLowerCase()}${el.className && typeof el.className === "string" ? "." + el.className.trim().replace(/\s+/g, ".") : ""} ${JSON.stringify((el.innerText || "").trim().slice(0, 30))}`;
    for (const el of document.querySelectorAll("body *")) {
      if (el.closest(".sr-only")) continue;
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > max + 1) wide.push(`${what(el)} ends at ${Math.round(r.right)}px`);
      else if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) wide.push(`${what(el)} holds ${el.scrollWidth}px in ${el.clientWidth}px`);
    }
    if (wide.length) out.push(`wider than the frame: ${wide.slice(0, 4).join("; ")}`);
    const broken = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    while (walker.nextNode()) {
      const t = walker.currentNode;
      const el = t.parentElement;
      if (!el || el.closest(".sr-only") || !el.getClientRects().length) continue;
      for (const m of t.textContent.matchAll(/[\p{L}\p{N}]{2,}/gu)) {
        range.setStart(t, m.index);
        range.setEnd(t, m.index + m[0].length);
        const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
        if (rects.some((r) => Math.abs(r.top - rects[0].top) > rects[0].height / 2)) {
          const line = rects.map((r) => r.top);
          broken.push(`${JSON.stringify(m[0])} in ${what(el)} (lines at ${[...new Set(line.map(Math.round))].join(", ")}px)`);
        }
      }
    }
    if (broken.length) out.push(`breaks words across lines: ${broken.slice(0, 4).join("; ")}${broken.length > 4 ? ` and ${broken.length - 4} more` : ""}`);
    return out;
  });
}

// dateStyle holds every date shown to the card's one style, the server's:
// "Tue 1 Dec 2026", "Tue 1 Dec 2026, 15:05 CET". No ISO day, no month
// before the day, no 12-hour clock, no weekday with a comma, no day
// without its weekday. Quotations (q, blockquote) are left as written.
async function dateStyle(frame) {
  return frame.evaluate(() => {
    const WD = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
    const MON = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
    const house = new RegExp(`^${WD} \\d{1,2} ${MON} \\d{4}(?:, \\d{2}:\\d{2} \\S+)?$`);
    // Someone else's words quoted as written (a reply's excerpt) are theirs.
    const st = document.createElement("style");
    st.textContent = "q, blockquote { display: none !important; }";
    document.head.append(st);
    const text = document.body.innerText;
    st.remove();
    const out = [];
    const bad = [
      [/\b\d{4}-\d{2}-\d{2}\b/g, "an ISO date"],
      [/\b\d{1,2}:\d{2}\s?(?:AM|PM|am|pm)\b/g, "a 12-hour time"],
      [new RegExp(`\\b${MON}[a-z]* \\d{1,2},? \\d{4}`, "g"), "the month before the day"],
      [new RegExp(`\\b${WD}[a-z]*, (?:\\d|${MON})`, "g"), "a comma after the weekday"],
      [new RegExp(`\\b\\d{1,2} ${MON}[a-z]+\\.? \\d{4}`, "g"), "the month in full"],
      [new RegExp(`(?<!\\b${WD} )\\b\\d{1,2} ${MON} \\d{4}`, "g"), "a day without its weekday"],
    ];
    for (const [re, why] of bad) for (const m of text.matchAll(re)) out.push(`shows a date in another style (${why}): ${JSON.stringify(text.slice(Math.max(0, m.index - 12), m.index + m[0].length + 12))}`);
    for (const t of document.querySelectorAll("time")) {
      const v = t.textContent.trim();
      if (!house.test(v)) out.push(`shows ${JSON.stringify(v)} for ${t.getAttribute("datetime")}, not in the card's date style ("Tue 1 Dec 2026, 15:05 CET")`);
    }
    return out;
  });
}
