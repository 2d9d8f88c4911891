// Workspace knowledge: workspace, memory, offer, playbook, support.

import type { ContactSupportResult, GetWorkspaceContextResult, RememberResult, SaveOfferResult, SavePlaybookResult } from "../generated/types";
import { domainStateLabels, mailboxStateLabels, sandboxShortcutLabels } from "../generated/labels";
import { Ctx } from "../ctx";
import { Child, h } from "../dom";
import { lowerFirst, moment, plural, sentence } from "../format";
import { sourceText } from "./sending";
import { Money, Row, bullets, card, facts, isMoney, moneyText, na, notice, pill, section, stat, statusPill } from "../ui";

type Offer = SaveOfferResult["offer"];

type Playbook = SavePlaybookResult["playbook"];

type MemoryItem = NonNullable<RememberResult["memory"]>;

function price(p: Money | null | undefined): Child {
  return isMoney(p) ? moneyText(p) : na();
}

function saved(at: string | null | undefined): Child {
  return at ? h("p", { class: "muted small" }, "Saved ", moment(at)) : null;
}

function offerFacts(o: Offer, withCompany = true): HTMLElement {
  return facts([
    ...(withCompany ? ([["Company", o.companyDomain ? `${o.companyName} (${o.companyDomain})` : o.companyName]] as Row[]) : []),
    ["Sells", o.product],
    ["To", o.audience],
    ["Value for the buyer", o.value],
    ["Call to action", o.callToAction],
    ["Price", price(o.price)],
  ]);
}

function proof(points: string[] | null | undefined): Child {
  if (points === null || points === undefined) return section("Proof points", na());
  if (points.length === 0) return null;
  return section("Proof points", bullets(points));
}

export function offerView(d: SaveOfferResult): HTMLElement {
  const o = d.offer;
  return card({
    label: "Offer saved",
    icon: "tag",
    title: o.product,
    lede: o.companyDomain ? `${o.companyName} · ${o.companyDomain}` : o.companyName,
    pill: pill("Saved", "ok", "check"),
    body: [offerFacts(o, false), proof(o.proofPoints), saved(o.updatedAt)],
  });
}

function objections(list: Playbook["objections"]): Child {
  if (list === null || list === undefined) return section("Objections", na());
  if (list.length === 0) return null;
  return section(
    "Objections and answers",
    h("ul", { class: "plain" }, ...list.map((o) => h("li", { class: "group" }, h("p", { class: "strong" }, `“${o.objection}”`), h("p", { class: "lede" }, o.answer)))),
  );
}

function optionalList(title: string, items: string[] | null | undefined): Child {
  if (items === null || items === undefined) return section(title, na());
  if (items.length === 0) return null;
  return section(title, bullets(items));
}

export function playbookView(d: SavePlaybookResult): HTMLElement {
  const p = d.playbook;
  return card({
    label: "Playbook saved",
    icon: "book",
    title: "How the emails should sound",
    pill: pill("Saved", "ok", "check"),
    body: [
      facts([["Tone", p.tone]]),
      optionalList("Angles to open with", p.angles),
      objections(p.objections),
      optionalList("Do", p.dos),
      optionalList("Don't", p.donts),
      saved(p.updatedAt),
    ],
  });
}

const aboutLabel: Record<string, string> = { person: "About the person", company: "About the company", preference: "Preference" };

/** memoryList shows the facts given (a page, or the newest few) and counts the others of total. */
function memoryList(items: MemoryItem[] | null | undefined, total: number, limit = Infinity): Child {
  if (items === null || items === undefined) return na();
  if (total === 0) return h("p", { class: "muted" }, "Nothing remembered yet.");
  const shown = items.slice(0, limit);
  return [
    h(
      "ul",
      { class: "rows" },
      ...shown.map((m) =>
        h("li", null, h("div", { class: "main" }, h("p", null, m.fact), h("p", { class: "muted small" }, aboutLabel[m.about] ?? sentence(m.about), " · ", moment(m.createdAt)))),
      ),
    ),
    total > shown.length ? h("p", { class: "muted small" }, `and ${plural(total - shown.length, "more fact", "more facts")}`) : null,
  ];
}

export function memoryView(d: RememberResult): HTMLElement {
  let title: Child = "What VibeSell remembers";
  let label = "Memory";
  let p: HTMLElement | null = null;
  if (d.action === "remembered" && d.memory) {
    title = d.memory.fact;
    label = "Remembered";
    p = pill("Remembered", "ok", "check");
  } else if (d.action === "forgotten" && d.memory) {
    title = d.memory.fact;
    label = "Forgotten";
    p = pill("Forgotten", "muted", "x");
  }
  const count = plural(d.total, "fact", "facts");
  return card({
    label,
    icon: "bulb",
    title,
    lede: d.memory && d.action !== "listed" ? [aboutLabel[d.memory.about] ?? sentence(d.memory.about)] : null,
    pill: p,
    body: [section(`Remembered now (${count})`, memoryList(d.memories, d.total))],
  });
}

const ticketStatus: Record<string, [string, "ok" | "info" | "muted", string?]> = {
  open: ["Open", "info", "clock"],
  answered: ["Answered", "ok", "check"],
  closed: ["Closed", "muted"],
};

export function supportView(d: ContactSupportResult): HTMLElement {
  const t = d.ticket;
  return card({
    label: "Support",
    icon: "life",
    title: `Ticket ${t.reference}`,
    lede: ["Opened ", moment(t.createdAt)],
    pill: statusPill(t.status, ticketStatus),
    body: [
      facts([
        ["Topic", sentence(t.topic)],
        ["Reply by email to", t.replyTo],
      ]),
      section("What you reported", h("p", { class: "group pre" }, t.message)),
      notice("info", "info", h("p", null, d.whatNext)),
    ],
  });
}

type SendingSummary = GetWorkspaceContextResult["sendingSetup"];


/** counts writes non-zero counts by status: "1 picked, not ordered · 2 ready"; none at all is "None yet". */
function counts(c: Record<string, number> | null, words: Readonly<Record<string, string>>): Child {
  if (!c) return na();
  const parts = Object.keys(words)
    .filter((k) => (c[k] ?? 0) > 0)
    .map((k) => `${c[k]} ${lowerFirst(words[k])}`);
  return parts.length ? parts.join(" · ") : h("span", { class: "muted" }, "None yet");
}

function sendingSummary(s: SendingSummary | null | undefined): Child {
  if (s === undefined) return null;
  if (s === null) return section("Sending setup", na());
  return section(
    "Sending setup",
    facts([
      ["Sending from", s.source ? sourceText(s.source, null) : h("span", { class: "muted" }, "Not chosen yet")],
      ["Sizing", s.sizingConfirmed ? "Confirmed" : h("span", { class: "muted" }, "Not confirmed yet")],
      ["Domains", counts(s.domains, domainStateLabels)],
      ["Mailboxes", counts(s.mailboxes, mailboxStateLabels)],
      ["Full volume from", s.readyToSendOn ? moment(s.readyToSendOn) : null],
    ]),
    s.sandbox ? h("p", { class: "muted small" }, "Sandbox: nothing here is real.") : null,
    s.sandboxShortcut > 0 ? h("p", { class: "muted small" }, `${sandboxShortcutLabels.sandbox_ready ?? ""}: ${plural(s.sandboxShortcut, "mailbox", "mailboxes")}.`) : null,
  );
}

export function workspaceView(
  d: GetWorkspaceContextResult,
  _ctx: Ctx,
): HTMLElement {
  const w = d.workspace;
  return card({
    label: "Workspace",
    icon: "home",
    title: w.name,
    lede: [`Workspace “${w.slug}” · created `, moment(w.createdAt)],
    body: [
      h(
        "div",
        { class: "stats" },
        stat("Plan", d.plan ? d.plan.name : null, d.plan ? sentence(d.plan.status) : null),
        stat("Facts remembered", d.memoryTotal),
        stat("Open support tickets", d.openSupportTickets),
      ),
      section("Offer", d.offer ? [offerFacts(d.offer), saved(d.offer.updatedAt)] : h("p", { class: "muted" }, "Not saved yet.")),
      section(
        "Playbook",
        d.playbook
          ? [
              facts([
                ["Tone", d.playbook.tone],
                ["Angles", d.playbook.angles ? plural(d.playbook.angles.length, "angle", "angles") : null],
                ["Objections", plural(d.playbook.objectionsCount, "objection", "objections")],
              ]),
              saved(d.playbook.updatedAt),
            ]
          : h("p", { class: "muted" }, "Not saved yet."),
      ),
      sendingSummary(d.sendingSetup),
      section("Remembered", memoryList(d.memory, d.memoryTotal, 5)),
      // A step naming a tool is for the assistant ("Ask the person…").
      d.nextStep && !d.nextStep.tool ? notice("info", "arrow", h("p", { class: "strong" }, "Next step"), h("p", null, d.nextStep.why)) : null,
    ],
  });
}
