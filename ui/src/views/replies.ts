// Replies: what came back to the sending addresses, newest first.

import type { ListRepliesResult } from "../generated/types";
import { replyClassificationLabels } from "../generated/labels";
import { h } from "../dom";
import { moment } from "../format";
import { Tone, card, na, pill } from "../ui";

type Reply = NonNullable<ListRepliesResult["replies"]>[number];

const tones: Record<string, Tone> = {
  interested: "ok",
  not_now: "info",
  not_interested: "muted",
  out_of_office: "info",
  unsubscribe: "warn",
  bounce: "bad",
  complaint: "bad",
  other: "muted",
};

function classification(c: string): HTMLElement {
  return pill(replyClassificationLabels[c] ?? c, tones[c] ?? "muted");
}

function answers(r: Reply): string {
  if (!r.campaign || !r.lead) return "Matched no email sent";
  const campaign = r.campaign.name ?? "a campaign";
  const step = r.step ? `email ${r.step} of ` : "";
  return `Answers ${step}${campaign}, sent to ${r.lead.email}`;
}

function row(r: Reply): HTMLElement {
  return h(
    "li",
    null,
    h(
      "div",
      { class: "main" },
      h("p", { class: "strong" }, r.from),
      // The sender's own words, quoted as written (dates and all).
      h("p", null, r.excerpt ? h("q", null, r.excerpt) : na()),
      h("p", { class: "muted small" }, answers(r), " · ", moment(r.receivedAt)),
      r.returnsOn ? h("p", { class: "small" }, "Back on ", moment(r.returnsOn)) : null,
      h("p", { class: "muted small" }, `Why: ${r.rule}`),
    ),
    h("div", { class: "side" }, classification(r.classification)),
  );
}

export function repliesView(d: ListRepliesResult): HTMLElement {
  const list = d.replies ?? [];
  return card({
    label: "Replies",
    icon: "mail",
    title: list.length === 0 ? "No replies yet" : list.length === 1 ? "1 reply" : `${list.length} replies`,
    lede: d.nextCursor ? "The newest first; there are more." : list.length > 0 ? "The newest first." : "Replies to the campaigns' emails are listed here as they arrive.",
    body: list.length === 0 ? [] : [h("ul", { class: "rows" }, ...list.map(row))],
  });
}
