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
// its failures; the exit code is 1 when any scenario failed. --only NAME
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

const WIDTH = 640;
const PHONE = 360;
const PAGE_BG = { light: "#f5f4ef", dark: "#262624" };

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
  html { background: ${PAGE_BG.light}; } html[data-theme=dark] { background: ${PAGE_BG.dark}; }
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

    step("facts");
    // 2. It reports its size.
    const sizes = (await log(page)).filter((e) => e.type === "size-changed");
    if (!sizes.some((e) => e.params.height > 0)) fail("never reported a size with a height");
    await fit(page, frame);
    const reported = (await log(page)).filter((e) => e.type === "size-changed").pop()?.params.height ?? 0;
    const content = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
    if (Math.abs(reported - content) > 2) fail(`the last size it reported (${reported}px high) is not its content's (${content}px)`);

    step("size");
    // 3. Accessibility and contrast, in both themes.
    for (const f of await a11y(frame, "light")) fail(`light: ${f}`);
    for (const f of await focusOrder(page, frame)) fail(f);
    await frame.evaluate(() => document.activeElement?.blur());
    screenshots.push(await shot(page, s.name, "light"));
    await page.evaluate(() => window.harness.setTheme("dark"));
    await frame.waitForFunction(() => document.documentElement.dataset.theme === "dark");
    await page.waitForTimeout(50);
    for (const f of await a11y(frame, "dark")) fail(`dark: ${f}`);
    screenshots.push(await shot(page, s.name, "dark"));
    await page.evaluate(() => window.harness.setTheme("light"));

    step("themes");
    // 4. A narrow phone screen: nothing wider than the screen.
    await page.evaluate((w) => (document.querySelector("iframe").style.width = `${w}px`), PHONE);
    await page.setViewportSize({ width: PHONE + 32, height: 900 });
    await page.waitForTimeout(100);
    const overflow = await frame.evaluate(() => {
      const wide = [];
      const max = document.documentElement.clientWidth;
      for (const el of document.querySelectorAll("body *")) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > max + 1) wide.push(`${el.tagName.toLowerCase()}.${el.className} (${Math.round(r.right)}px)`);
      }
      return { scroll: document.documentElement.scrollWidth, client: max, wide: wide.slice(0, 5) };
    });
    if (overflow.scroll > overflow.client + 1 || overflow.wide.length) fail(`on a ${PHONE}px screen it is wider than the screen: ${JSON.stringify(overflow)}`);
    screenshots.push(await shot(page, s.name, "phone"));
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
  const file = join(outDir, `${name}-${variant}.png`);
  await page.locator("#slot").screenshot({ path: file, animations: "disabled" });
  if (tall > size.height) await page.setViewportSize(size);
  return file;
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
