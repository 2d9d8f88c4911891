// The building blocks every view is made of: the card shell, facts, pills,
// notices and buttons. A value that is null is "Not available", never 0,
// "none" or an empty space.

import { Child, append, h, icon, uid } from "./dom";
import { count, isMoment, money, moment, sentence } from "./format";

export type Tone = "ok" | "warn" | "bad" | "info" | "muted";

export interface CardParts {
  /** what this card is, in a few words: "Approval needed", "Question". */
  label: string;
  icon: string;
  title: Child;
  lede?: Child;
  pill?: HTMLElement | null;
  body?: Child[];
  actions?: Child[];
}

/** card is the frame of every view: brand, what it is, title, body, actions. */
export function card(p: CardParts): HTMLElement {
  const titleId = uid("title");
  const actions = (p.actions ?? []).filter(Boolean);
  return h(
    "article",
    { class: "card", "aria-labelledby": titleId },
    h(
      "header",
      { class: "head" },
      h(
        "div",
        { class: "eyebrow" },
        h("span", { class: "what" }, icon(p.icon), h("span", { class: "brand" }, "VibeSell"), h("span", { class: "dot", "aria-hidden": "true" }, "·"), h("span", null, p.label)),
        p.pill ?? null,
      ),
      h("h1", { id: titleId, tabindex: "-1" }, p.title),
      p.lede ? h("p", { class: "lede" }, p.lede) : null,
    ),
    ...(p.body ?? []),
    actions.length ? h("div", { class: "actions" }, ...actions) : null,
  );
}

export function pill(text: string, tone: Tone = "muted", iconName?: string): HTMLElement {
  return h("span", { class: `pill tone-${tone}` }, iconName ? icon(iconName) : null, text);
}

export function notice(tone: Tone, iconName: string, ...children: Child[]): HTMLElement {
  return h("div", { class: `notice tone-${tone}`, role: tone === "bad" || tone === "warn" ? "note" : null }, icon(iconName), h("div", null, ...children));
}

export function section(title: string, ...children: Child[]): HTMLElement {
  return h("section", { "aria-label": title }, h("h2", null, title), ...children);
}

/** na is how a null value reads. */
export function na(): HTMLElement {
  return h("span", { class: "na" }, "Not available");
}

export type Row = [label: string, value: unknown];

/** facts is a definition list; each value goes through [value]. */
export function facts(rows: Row[]): HTMLElement {
  const dl = h("dl", { class: "facts" });
  for (const [label, v] of rows) {
    dl.append(h("dt", null, label), h("dd", null, value(v)));
  }
  return dl;
}

export interface Money {
  amount: string;
  currency: string;
  period?: string | null;
}

export function isMoney(v: unknown): v is Money {
  return !!v && typeof v === "object" && typeof (v as Money).amount === "string" && typeof (v as Money).currency === "string";
}

export function moneyText(m: Money): string {
  const base = money(m.amount, m.currency);
  return m.period ? `${base} per ${m.period}` : base;
}

/** value renders one value for people: null, money, moments, yes/no, numbers, text. */
export function value(v: unknown): Child {
  if (v instanceof Node) return v;
  if (v === null || v === undefined) return na();
  if (typeof v === "boolean") return v ? "Yes" : "No";
  if (typeof v === "number") return count(v);
  if (isMoment(v)) return moment(v);
  if (isMoney(v)) return moneyText(v);
  if (typeof v === "string") return v;
  if (Array.isArray(v)) {
    if (v.length === 0) return h("span", { class: "muted" }, "None");
    return h("ul", { class: "bullets" }, ...v.map((x) => h("li", null, value(x))));
  }
  return JSON.stringify(v);
}

export interface ButtonOptions {
  variant?: "primary" | "secondary" | "danger" | "choice";
  icon?: string;
  /** extra content after the label (the choice buttons' description). */
  after?: Child;
}

/**
 * button is a real <button>. When onClick returns a promise, the button
 * shows a spinner and every button in the same card is disabled until it
 * settles, so one click sends one request.
 */
export function button(label: Child, onClick: (b: HTMLButtonElement) => unknown, o: ButtonOptions = {}): HTMLButtonElement {
  const b = h("button", { type: "button", class: o.variant && o.variant !== "secondary" ? o.variant : null });
  const spin = h("span", { class: "spinner", "aria-hidden": "true", hidden: true });
  append(b, [o.icon ? icon(o.icon) : null, spin, h("span", { class: "text" }, label), o.after]);
  b.addEventListener("click", async () => {
    if (b.disabled || b.getAttribute("aria-busy") === "true") return;
    const res = onClick(b);
    if (!(res instanceof Promise)) return;
    const group = Array.from((b.closest(".card") ?? b.parentElement ?? b).querySelectorAll<HTMLButtonElement>("button"));
    for (const other of group) other.disabled = true;
    b.setAttribute("aria-busy", "true");
    spin.hidden = false;
    try {
      await res;
    } finally {
      for (const other of group) other.disabled = false;
      b.setAttribute("aria-busy", "false");
      spin.hidden = true;
    }
  });
  return b;
}

/** statusPill maps a server status to a labelled pill; unknown statuses are shown as sent. */
export function statusPill(status: string | null | undefined, map: Record<string, [string, Tone, string?]>): HTMLElement {
  if (status === null || status === undefined) return pill("Status not available", "muted");
  const m = map[status];
  return m ? pill(m[0], m[1], m[2]) : pill(sentence(status), "muted");
}

/** list renders strings as bullets, or "None" when empty. */
export function bullets(items: string[] | null | undefined): Child {
  if (items === null || items === undefined) return na();
  if (items.length === 0) return h("p", { class: "muted" }, "None");
  return h("ul", { class: "bullets" }, ...items.map((x) => h("li", null, x)));
}

export function stat(label: string, v: unknown, sub?: Child): HTMLElement {
  // A date is longer than an amount: it gets a smaller figure.
  const long = v instanceof HTMLTimeElement;
  return h(
    "div",
    { class: "stat" },
    h("div", { class: "label" }, label),
    h("div", { class: long ? "value long" : "value" }, value(v)),
    sub ? h("div", { class: "sub" }, sub) : null,
  );
}
