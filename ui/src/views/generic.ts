// The view for a kind the card does not know yet: every field, in words,
// nested objects as groups, lists as rows. Readable, never raw JSON.

import { Ctx } from "../ctx";
import { Child, address, h } from "../dom";
import { words } from "../format";
import { button, card, isMoney, na, section, value } from "../ui";

const hidden = new Set(["kind"]);

export function genericView(data: Record<string, unknown>, ctx: Ctx): HTMLElement {
  const kind = typeof data.kind === "string" ? data.kind : "result";
  return card({
    label: words(kind),
    icon: "info",
    title: titleOf(data) ?? words(kind),
    body: fields(data, ctx, 0),
  });
}

function titleOf(data: Record<string, unknown>): string | null {
  for (const k of ["title", "summary", "name", "question"]) {
    if (typeof data[k] === "string" && data[k]) return data[k] as string;
  }
  return null;
}

function isURL(v: unknown): v is string {
  return typeof v === "string" && /^https?:\/\/\S+$/.test(v);
}

function isScalar(v: unknown): boolean {
  return v === null || typeof v !== "object" || isMoney(v) || (Array.isArray(v) && v.every((x) => x === null || typeof x !== "object"));
}

/** fields renders an object's fields: scalars first as facts, then groups. */
export function fields(obj: Record<string, unknown>, ctx: Ctx, depth: number): Child[] {
  const keys = Object.keys(obj).filter((k) => !hidden.has(k));
  const scalars = keys.filter((k) => isScalar(obj[k]));
  const nested = keys.filter((k) => !isScalar(obj[k]));
  const out: Child[] = [];
  if (scalars.length) {
    const dl = h("dl", { class: "facts" });
    for (const k of scalars) {
      const v = obj[k];
      dl.append(h("dt", null, words(k)), h("dd", null, isURL(v) ? link(v, ctx) : value(v)));
    }
    out.push(dl);
  }
  for (const k of nested) {
    const v = obj[k];
    if (Array.isArray(v)) {
      out.push(
        section(
          words(k),
          v.length === 0
            ? h("p", { class: "muted" }, "None")
            : h("ul", { class: "plain" }, ...v.map((item) => h("li", { class: "group" }, ...(item && typeof item === "object" ? fields(item as Record<string, unknown>, ctx, depth + 1) : [value(item)])))),
        ),
      );
    } else if (v && typeof v === "object") {
      out.push(depth < 3 ? section(words(k), h("div", { class: "group" }, ...fields(v as Record<string, unknown>, ctx, depth + 1))) : h("p", null, na()));
    }
  }
  return out;
}

/** link shows a web address and a button that asks the host to open it. */
export function link(url: string, ctx: Ctx, label = "Open", variant?: "primary"): HTMLElement {
  return h(
    "span",
    { class: "link-row" },
    button(label, () => ctx.open(url), { icon: "external", variant }),
    h("span", { class: "mono" }, address(url)),
  );
}

export function loading(text: string): HTMLElement {
  return h("div", { class: "card" }, h("div", { class: "loading", role: "status" }, h("span", { class: "spinner", "aria-hidden": "true" }), h("span", null, text)));
}
