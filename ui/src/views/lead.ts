// A lead's story: where it came from, each campaign's emails, the next
// one or why it stopped, and the replies.

import type { GetLeadResult } from "../generated/types";
import { leadStatusLabels, leadStepLabels, leadStopLabels, replyClassificationLabels } from "../generated/labels";
import { h } from "../dom";
import { moment } from "../format";
import { card, pill, section } from "../ui";

type Campaign = NonNullable<GetLeadResult["campaigns"]>[number];

function campaign(c: Campaign): HTMLElement {
  const n = c.next;
  return section(
    c.name,
    h("ul", { class: "rows" }, ...(c.sent ?? []).map((s) => h("li", null, h("p", null, `Email ${s.step}: `, leadStepLabels[s.outcome] ?? s.outcome, ", ", moment(s.at), ` from ${s.mailbox}`)))),
    c.sentTotal === 0 ? h("p", { class: "muted small" }, "Nothing sent yet.") : null,
    n ? h("p", null, `Next: email ${n.step} of ${c.steps}`, n.due ? [", due ", moment(n.due)] : n.waiting === "launch" ? ", once the campaign is launched" : ", waiting while the campaign is paused") : null,
    c.stopped ? h("p", null, "Stopped: ", leadStopLabels[c.stopped.reason] ?? c.stopped.reason, c.stopped.by ? ` (${c.stopped.by})` : "", c.stopped.at ? [", ", moment(c.stopped.at)] : "") : null,
  );
}

export function leadView(d: GetLeadResult): HTMLElement {
  const replies = d.replies ?? [];
  return card({
    label: "Lead",
    icon: "mail",
    title: d.name || d.email,
    pill: pill(leadStatusLabels[d.status] ?? d.status, d.status === "replied" ? "ok" : d.status === "emailed" ? "info" : "muted"),
    lede: [d.name ? d.email : "", d.company].filter(Boolean).join(" · "),
    body: [
      ...(d.campaigns ?? []).map(campaign),
      replies.length
        ? section(
            "Replies",
            h("ul", { class: "rows" }, ...replies.map((r) => h("li", null, h("p", { class: "strong" }, replyClassificationLabels[r.classification] ?? r.classification, ", from ", r.from, ", ", moment(r.receivedAt)), h("p", null, h("q", null, r.excerpt))))),
          )
        : null,
    ],
  });
}
