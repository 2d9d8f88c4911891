// Approval cards: an action with consequences, waiting for a person.
//
// When the person may decide here (decideHere) and it is pending, Approve
// and Reject call the card's own tool (decide_in_card) with the one-time
// token the server sent the card, so the decision is recorded as clicked;
// a host that gave the card no token (or has no app-only tools) gets
// decide_approval instead, recorded as relayed. Either way the card shows
// the status the server returns. Otherwise the only way to approve is the web app, opened
// through the host. A pending card re-reads the approval's status when it
// is drawn and whenever it is shown again, and offers no decision until the
// server has said it is still pending. The re-read asks for exactly this
// approval (list_pending_approvals with its id), so an approval of any age
// is found; one the server does not have in this workspace is shown as not
// found, with nothing to decide.

import { CLICK_TOOL, Ctx, REFUSAL_META_KEY, ToolResult, isRefusal, textOf } from "../ctx";
import { approvalActionLabels, approvalHostAppsLabels, approvalStatusLabels, approvalViaLabels } from "../generated/labels";
import type { DecideApprovalResult, ListPendingApprovalsResult } from "../generated/types";
import { Child, address, h, uid } from "../dom";
import { count, moment, momentText, sentence, until } from "../format";
import { Money, Tone, bullets, button, card, facts, isMoney, moneyText, na, notice, pill, section, stat } from "../ui";

export type Impact = ApprovalData["impact"];

export type ApprovalData = DecideApprovalResult;

/** The tools the card uses; their names are the product's public contract. */
export const DECIDE_TOOL = "decide_approval";
export const READ_TOOL = "list_pending_approvals";

/** readArgs reads exactly one approval, whatever its status and age, as a one-item list. */
export function readArgs(id: string): Record<string, unknown> {
  return { approval: id };
}


/**
 * isNotFound tells the server's refusal of an id it has no approval for in
 * this workspace (code "not_found") from any other refusal (a failure on
 * its side, a lost connection). A host that drops the result's _meta
 * leaves only the sentence ("There is no approval ap_… in this
 * workspace."), which is read as a last resort.
 */
export function isNotFound(res: ToolResult, id: string): boolean {
  const meta = res._meta as Record<string, unknown> | undefined;
  const code = meta?.[REFUSAL_META_KEY];
  if (typeof code === "string") return code === "not_found";
  return textOf(res).includes(`no approval ${id} `);
}

// The words are approvals' (generated); the tone and icon are the card's.
const statusLooks: Record<string, [Tone, string]> = {
  pending: ["warn", "clock"],
  approved: ["info", "check"],
  done: ["ok", "check"],
  not_done: ["bad", "x"],
  rejected: ["muted", "x"],
};

export function approvalPill(status: string | null | undefined): HTMLElement {
  if (!status) return pill("Status not available", "muted");
  const label = approvalStatusLabels[status];
  const [tone, look] = statusLooks[status] ?? ["muted", undefined];
  return label ? pill(label, tone, look) : pill(sentence(status), "muted");
}

export function actionLabel(action: string): string {
  return approvalActionLabels[action] ?? sentence(action);
}

const outcomeTone: Record<string, Tone> = { done: "ok", not_done: "bad", rejected: "muted", approved: "info" };
const impactTitle: Record<string, string> = {
  pending: "What will happen",
  approved: "What is being done",
  done: "What was approved",
  not_done: "What it would have done",
  rejected: "What it would have done",
};

function cost(m: Money | null | undefined): Child {
  return isMoney(m) ? moneyText(m) : na();
}

function impactBlock(im: Impact | string | null, status: string, titled = true): Child[] {
  const title = impactTitle[status] ?? "What it does";
  const block = (...c: Child[]): HTMLElement => (titled ? section(title, ...c) : h("div", { class: "stack" }, ...c));
  if (im === null || im === undefined) return [block(na())];
  if (typeof im === "string") return [block(h("p", { class: "pre" }, im))];
  const out: Child[] = [];
  const more = im.items && im.itemsTotal > im.items.length ? h("p", { class: "muted small" }, `and ${im.itemsTotal - im.items.length} more`) : null;
  out.push(block(im.what ? h("p", null, im.what) : na(), im.items && im.items.length ? bullets(im.items) : null, more));
  if ("costOnce" in im || "costMonthly" in im) {
    const sandbox = im.sandbox === true;
    out.push(
      h(
        "div",
        { class: "stats" },
        stat("Cost now", cost(im.costOnce), sandbox ? "sandbox amount: nothing is charged" : "charged once"),
        stat("Cost per month", cost(im.costMonthly), sandbox ? "sandbox amount: nothing is charged" : "from now on"),
      ),
    );
  }
  const rows: [string, unknown][] = [];
  if ("who" in im) rows.push(["Who is contacted", im.who ?? null]);
  if ("when" in im) rows.push(["When", im.when ?? null]);
  if (im.charged) rows.push(["Charged", im.charged]);
  if ("renewal" in im) rows.push(["Renewal", im.renewal ?? null]);
  if ("undo" in im) rows.push(["Can it be undone?", im.undo ?? null]);
  if (im.personOnly) rows.push(["Who can approve it", im.personOnly]);
  if (rows.length) out.push(facts(rows));
  return out;
}

/** outcome is what became of an approval that is no longer pending, first thing on its card. */
function outcome(d: ApprovalData): Child {
  if (d.status === "pending" || !d.outcome) return null;
  // A rejection's outcome repeats who rejected it and why, shown under Decision.
  if (d.status === "rejected" && d.decidedBy) return null;
  const tone = outcomeTone[d.status] ?? "muted";
  return notice(tone, d.status === "done" ? "check" : d.status === "approved" ? "clock" : "info", h("p", null, d.outcome));
}

/** decision is who decided, when, where and why; an approval that ended undecided has none. */
function decision(d: ApprovalData): Child {
  if (d.status === "pending" || (d.decidedBy === null && d.decidedAt === null && !d.reason)) return null;
  const rows: [string, unknown][] = [
    [d.status === "rejected" ? "Rejected by" : "Approved by", d.decidedBy ?? null],
    ["When", d.decidedAt ? moment(d.decidedAt) : null],
  ];
  if (d.decidedVia !== undefined) rows.push(["Where", d.decidedVia ? sentence(approvalViaLabels[d.decidedVia] ?? d.decidedVia) + hostApps(d) : null]);
  if (d.reason) rows.push(["Reason", d.reason]);
  return section("Decision", facts(rows));
}

/** progress says, for an approval several people approve, how many did and whom it waits for. */
function progress(d: ApprovalData): Child {
  if (!d.progress || (d.status !== "pending" && d.status !== "approved")) return null;
  return notice(d.progress.waitingFor ? "info" : "ok", "check", h("p", { class: "strong progress" }, sentence(d.progress.text)));
}

/** hostApps says, beside a decision from the conversation, whether the app said it shows cards. */
function hostApps(d: ApprovalData): string {
  if (d.decidedVia === "web" || d.decidedHostApps === null || d.decidedHostApps === undefined) return "";
  return ` (${approvalHostAppsLabels[String(d.decidedHostApps)] ?? ""})`;
}

/** countdown is a live "expires in" line, against the local clock. */
function countdown(expiresAt: string, ctx: Ctx, onExpired: () => void): HTMLElement {
  const end = new Date(expiresAt).getTime();
  const left = h("span", { class: "countdown" });
  const line = h("p", { class: "status-line muted small" }, h("span", null, "Decide by ", moment(expiresAt)), h("span", { "aria-hidden": "true" }, "·"), left);
  let fired = false;
  const tick = () => {
    const ms = end - Date.now();
    if (ms <= 0) {
      left.textContent = "expired";
      if (!fired) {
        fired = true;
        onExpired();
      }
      return;
    }
    left.textContent = `expires in ${until(ms)}`;
  };
  tick();
  if (!Number.isNaN(end)) ctx.every(1000, tick);
  return line;
}

// Approval data that was just read from the server: drawn without a re-read.
const fresh = new WeakSet<object>();
// Approval data the server said it has no record of in this workspace.
const gone = new WeakSet<object>();

export function approvalView(d: ApprovalData, ctx: Ctx): HTMLElement {
  if (gone.has(d)) return notFoundView(d);
  const pending = d.status === "pending";
  const checked = fresh.has(d);
  const errorBox = h("div", { "aria-live": "polite" });
  const actions: Child[] = [];
  const extra: Child[] = [];
  const decisionButtons: HTMLButtonElement[] = [];

  async function decide(decisionValue: "approve" | "reject", reason?: string): Promise<void> {
    errorBox.replaceChildren();
    const args: Record<string, unknown> = { approval: d.approval, decision: decisionValue };
    if (reason) args.reason = reason;
    // What this card shows, by its hash: a decision on what has changed
    // since is refused by the server, which names the change.
    if (d.shown) args.shown = d.shown;
    let result: ToolResult | undefined;
    const token = ctx.token(d.approval);
    if (token) {
      // Recorded as clicked. A host that cannot call the card's own tool
      // (no app-only tools) answers without VibeSell's refusal code: the
      // decision then goes the assistant's way, recorded as relayed.
      try {
        result = await ctx.call(CLICK_TOOL, { ...args, token });
        if (result.isError && !isRefusal(result)) result = undefined;
      } catch {
        result = undefined;
      }
      const sc = result?.structuredContent as { kind?: string; approval?: Record<string, unknown> } | undefined;
      if (sc?.kind === "card_decision" && sc.approval) result = { ...result, structuredContent: { ...sc.approval, kind: "approval" } };
    }
    try {
      result ??= await ctx.call(DECIDE_TOOL, args);
    } catch {
      errorBox.replaceChildren(
        notice("bad", "alert", h("p", null, `The decision could not be sent from this card. Tell the assistant to ${decisionValue} approval ${d.approval} instead.`)),
      );
      return;
    }
    if (result.isError || !result.structuredContent) {
      errorBox.replaceChildren(notice("bad", "alert", h("p", null, textOf(result) || "VibeSell did not accept the decision.")));
      return;
    }
    if (result.structuredContent.kind === "approval") fresh.add(result.structuredContent);
    const counted = decisionValue === "approve" && result.structuredContent.status === "pending";
    ctx.show(result, counted ? "Your approval is counted." : decisionValue === "approve" ? "Approved." : "Rejected.");
    void ctx.say(`I ${decisionValue === "approve" ? "approved" : "rejected"} “${d.summary}” (approval ${d.approval})${reason ? `: ${reason}` : ""}.`);
  }

  const rejectBox = h("div");
  function showReject(): void {
    const id = uid("reason");
    const input = h("textarea", { id, rows: 2, maxlength: 500, placeholder: "Why not? The assistant will read this." });
    const confirm = button("Reject", () => decide("reject", input.value.trim() || undefined), { variant: "danger", icon: "x" });
    const cancel = button("Keep it waiting", () => {
      rejectBox.replaceChildren();
      for (const b of decisionButtons) b.hidden = false;
      decisionButtons[0]?.focus();
    });
    for (const b of decisionButtons) b.hidden = true;
    rejectBox.replaceChildren(
      h(
        "div",
        { class: "group" },
        h("div", { class: "field" }, h("label", { for: id }, "Reason ", h("span", { class: "hint" }, "(optional)")), input),
        h("div", { class: "actions" }, confirm, cancel),
      ),
    );
    input.focus();
  }

  if (pending) {
    const reject = button("Reject…", () => showReject(), { icon: "x" });
    if (d.decideHere) {
      const approve = button("Approve", () => decide("approve"), { variant: "primary", icon: "check" });
      decisionButtons.push(approve, reject);
      actions.push(approve, reject);
    } else {
      // Paid or irreversible: only a signed-in person in the web app may
      // approve; rejecting is allowed anywhere.
      extra.push(notice("info", "shield", h("p", null, "Only a signed-in person in the VibeSell web app can approve this. You can still reject it here.")));
      if (d.appUrl) {
        const url = d.appUrl;
        actions.push(button("Review and approve in VibeSell", () => ctx.open(url), { variant: "primary", icon: "external" }));
      }
      decisionButtons.push(reject);
      actions.push(reject);
    }
  } else if (d.appUrl) {
    const url = d.appUrl;
    actions.push(button("See it in VibeSell", () => ctx.open(url), { icon: "external" }));
  }

  // Until the server confirms it is still pending, no decision is offered:
  // this may be an old card, replayed after the decision was made.
  let checking: HTMLElement | null = null;
  if (pending && !checked) {
    for (const b of decisionButtons) b.disabled = true;
    checking = h("p", { class: "loading small", role: "status" }, h("span", { class: "spinner", "aria-hidden": "true" }), "Checking the current status…");
  }

  let refreshing = false;
  async function refresh(): Promise<void> {
    if (refreshing) return;
    refreshing = true;
    const now = await readApproval(ctx, d);
    refreshing = false;
    if (!root.isConnected) return;
    if (now === "not_found") {
      // Nothing to decide: the server would refuse any decision on it.
      const missing = { ...d, kind: "approval" };
      gone.add(missing);
      ctx.show({ structuredContent: missing as unknown as Record<string, unknown> });
      return;
    }
    if (now === "unknown" || (now.status === d.status && now.expiresAt === d.expiresAt && now.progress?.text === d.progress?.text && now.shown === d.shown)) {
      // Still as drawn, or the host could not read it: the decision is
      // offered, and the server is the judge of it (it refuses one already
      // made and says what is on record, which the card then shows).
      checking?.remove();
      for (const b of decisionButtons) b.disabled = false;
      return;
    }
    ctx.show({ structuredContent: now as unknown as Record<string, unknown> });
  }

  const root = card({
    label: pending ? "Approval needed" : "Approval",
    icon: "shield",
    title: d.summary,
    pill: approvalPill(d.status),
    body: [
      d.irreversible && (pending || d.status === "approved")
        ? notice("bad", "alert", h("p", { class: "strong" }, "This cannot be undone."), h("p", null, "Once approved, it is carried out and cannot be reversed."))
        : null,
      outcome(d),
      progress(d),
      decision(d),
      // Once it has ended, what it was about matters less than how it ended.
      pending || d.status === "approved"
        ? impactBlock(d.impact, d.status)
        : h("details", null, h("summary", null, impactTitle[d.status] ?? "What it was about"), h("div", { class: "details-body" }, ...impactBlock(d.impact, d.status, false))),
      pending ? (d.expiresAt ? countdown(d.expiresAt, ctx, () => void refresh()) : facts([["Expires", null]])) : null,
      ...extra,
      checking,
      rejectBox,
      errorBox,
      !pending || !d.decideHere ? appLink(d) : null,
    ],
    actions,
  });

  if (pending) {
    if (!checked) void refresh();
    ctx.onShow(() => void refresh());
  }
  return root;
}

function appLink(d: ApprovalData): Child {
  if (!d.appUrl) return null;
  return h("p", { class: "link-row" }, "In the web app: ", h("span", { class: "mono" }, address(d.appUrl)));
}

/**
 * notFoundView is an approval the server has no record of in the workspace
 * this conversation is connected to (another workspace's, or one that no
 * longer exists): what it asked, and that nothing can be decided here.
 */
function notFoundView(d: ApprovalData): HTMLElement {
  return card({
    label: "Approval",
    icon: "shield",
    title: d.summary,
    pill: pill("Not found", "muted", "x"),
    body: [
      notice(
        "warn",
        "alert",
        h("p", { class: "strong" }, "VibeSell has no record of this approval in this workspace."),
        h(
          "p",
          null,
          `Approval ${d.approval} is not in the VibeSell workspace this conversation is connected to, so it cannot be decided from this card and nothing will be done from it. Ask the assistant which approvals still need your decision.`,
        ),
      ),
      h("details", null, h("summary", null, "What it asked for"), h("div", { class: "details-body" }, ...impactBlock(d.impact, d.status, false))),
    ],
  });
}

/**
 * readApproval re-reads an approval through the host: the approval as it
 * stands now; "not_found" when the server has no such approval in this
 * workspace; or "unknown" when it could not be read. The read path is
 * list_pending_approvals with the approval's id, which returns exactly that
 * approval, whatever its status and age.
 */
async function readApproval(ctx: Ctx, d: ApprovalData): Promise<ApprovalData | "not_found" | "unknown"> {
  let res: ToolResult;
  try {
    res = await ctx.call(READ_TOOL, readArgs(d.approval));
  } catch {
    return "unknown";
  }
  if (res.isError) return isNotFound(res, d.approval) ? "not_found" : "unknown";
  const data = res.structuredContent as ListPendingApprovalsResult | undefined;
  if (!data || !Array.isArray(data.approvals)) return "unknown";
  const found = data.approvals.find((a) => a.approval === d.approval);
  if (!found) return "unknown";
  const now: ApprovalData = { ...found, kind: "approval" };
  fresh.add(now);
  return now;
}

export function approvalsView(d: ListPendingApprovalsResult, ctx: Ctx): HTMLElement {
  const list = d.approvals;
  const waiting = list ? list.filter((a) => a.status === "pending").length : 0;
  return card({
    label: "Approvals",
    icon: "shield",
    title: list === null ? "Approvals" : waiting > 0 ? `${count(waiting)} waiting for a decision` : "Nothing is waiting for a decision",
    body: [
      list === null
        ? na()
        : list.length === 0
          ? h("p", { class: "lede" }, "When an action needs a decision, it is listed here.")
          : h(
              "ul",
              { class: "rows" },
              ...list.map((a) =>
                h(
                  "li",
                  null,
                  h(
                    "div",
                    { class: "main" },
                    h("p", { class: "strong" }, a.summary),
                    h(
                      "p",
                      { class: "muted small" },
                      actionLabel(a.action),
                      impactCost(a.impact),
                      a.status === "pending" && a.expiresAt ? ` · decide by ${momentText(a.expiresAt)}` : "",
                    ),
                    a.status === "pending" && a.progress ? h("p", { class: "small progress" }, sentence(a.progress.text)) : null,
                    a.irreversible && a.status === "pending" ? h("p", { class: "small warn-text" }, "Cannot be undone") : null,
                    a.outcome ? h("p", { class: "small" }, a.outcome) : null,
                  ),
                  h(
                    "div",
                    { class: "side" },
                    approvalPill(a.status),
                    a.appUrl ? h("div", { style: "margin-top:8px" }, button("Open", () => ctx.open(a.appUrl as string), { icon: "external" })) : null,
                  ),
                ),
              ),
            ),
      d.nextCursor ? h("p", { class: "muted small" }, "More on the next page: ask the assistant for it.") : null,
    ],
  });
}

function impactCost(im: Impact | string | null): string {
  if (!im || typeof im === "string") return "";
  const parts: string[] = [];
  if (isMoney(im.costOnce)) parts.push(`${moneyText(im.costOnce)} now`);
  if (isMoney(im.costMonthly)) parts.push(`${moneyText(im.costMonthly)} per month`);
  if (parts.length && im.sandbox === true) parts.push("sandbox amounts, nothing charged");
  return parts.length ? ` · ${parts.join(", ")}` : "";
}
