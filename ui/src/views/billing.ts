// Plans and money: the plans with their prices and limits, usage against
// the current plan, and the Stripe pages (payment, billing portal) the
// person opens through the host. Only the person opens them; the card
// never pays or changes anything itself.

import { Ctx } from "../ctx";
import { billingMetricLabels, billingStatusLabels } from "../generated/labels";
import type { GetPlansAndBillingResult, OpenBillingPortalResult, StartCheckoutResult } from "../generated/types";
import { h } from "../dom";
import { count, forPerson, moment, plural, sentence } from "../format";
import { Tone, bullets, card, facts, moneyText, na, notice, pill, section } from "../ui";
import { link } from "./generic";
import { day, row, rows, sub } from "./sending";

/** said writes a server's reason as a sentence of its own, for the person. */
function said(why: string): string {
  const s = forPerson(why);
  return s.charAt(0).toUpperCase() + s.slice(1) + (/[.!?]$/.test(s) ? "" : ".");
}

const statusTones: Record<string, Tone> = { active: "ok", trialing: "info", past_due: "bad", unpaid: "bad", incomplete: "warn", paused: "warn" };

type Plan = NonNullable<GetPlansAndBillingResult["plans"]>[number];
type Usage = NonNullable<GetPlansAndBillingResult["usage"]>[number];

function limitsText(l: Plan["limits"]): string {
  return [
    plural(l.mailboxes, "mailbox", "mailboxes"),
    `${plural(l.leadsPerMonth, "lead", "leads")} a month`,
    `${plural(l.activeCampaigns, "campaign", "campaigns")} at once`,
    `${plural(l.emailsPerMonth, "email", "emails")} a month`,
  ].join(" · ");
}

function usageRow(u: Usage): HTMLElement {
  const label = billingMetricLabels[u.limit] ?? sentence(u.limit);
  if (u.used === null) {
    return row([h("p", { class: "strong" }, label), sub(said(u.why ?? "Not counted on this server"))], [sub(`${count(u.allowed)} allowed`)]);
  }
  const pct = u.allowed > 0 ? Math.min(100, Math.round((100 * u.used) / u.allowed)) : 100;
  return row(
    [
      h("p", { class: "strong" }, label),
      h("div", { class: "bar", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": u.allowed, "aria-valuenow": u.used, "aria-label": label, style: `--p:${pct}%` }),
    ],
    [h("p", { class: u.used >= u.allowed ? "warn-text" : null }, `${count(u.used)} of ${count(u.allowed)}`)],
  );
}

// plans: every plan, the current one, usage and the next invoice.

export function plansView(d: GetPlansAndBillingResult): HTMLElement {
  const plans = d.plans ?? [];
  const name = (id: string | null) => plans.find((p) => p.id === id)?.name ?? sentence(id ?? "");
  return card({
    label: "Plan and billing",
    icon: "tag",
    title: `You are on the ${name(d.current)} plan`,
    pill: pill(billingStatusLabels[d.status] ?? sentence(d.status), statusTones[d.status] ?? "muted"),
    body: [
      d.paymentFailedAt
        ? notice(
            "bad",
            "alert",
            h("p", { class: "strong" }, "A payment failed on ", moment(d.paymentFailedAt), " and is still unpaid."),
            h("p", null, "Update the card in the billing portal; ask the assistant for its link."),
          )
        : null,
      d.cancelAtPeriodEnd && d.periodEnd
        ? notice("warn", "info", h("p", null, "Your subscription ends on ", day(d.periodEnd), "; the workspace then returns to the free plan."))
        : d.pendingPlan && d.periodEnd
          ? notice("info", "info", h("p", null, `You move to the ${name(d.pendingPlan)} plan on `, day(d.periodEnd), "."))
          : null,
      section(
        "Usage",
        d.usage === null ? na() : d.usage.length ? rows(d.usage.map(usageRow)) : h("p", { class: "muted" }, "None"),
      ),
      facts([
        ["Next invoice", d.nextInvoice ? h("span", null, moneyText(d.nextInvoice.amountDue), " on ", day(d.nextInvoice.date)) : d.nextInvoiceWhy ? h("span", { class: "muted" }, said(d.nextInvoiceWhy)) : null],
        ...(d.periodEnd && !d.cancelAtPeriodEnd ? ([["Period ends", day(d.periodEnd)]] as [string, unknown][]) : []),
      ]),
      section(
        "Plans",
        d.plans === null
          ? na()
          : rows(
              plans.map((p) =>
                row(
                  [h("p", { class: "strong" }, p.name, " ", p.current ? pill("Your plan", "ok", "check") : null), sub(limitsText(p.limits))],
                  [h("p", { class: "strong" }, moneyText(p.price)), sub("per month")],
                ),
              ),
            ),
        sub("To change plan, ask the assistant: a paid change is approved by a signed-in person in the web app."),
      ),
    ],
  });
}

// checkout: Stripe's payment page for a plan (or, already subscribed, the portal).

const afterPayment = (plan: string) => [
  "You pay on Stripe's page; nothing is charged until you do.",
  `Once paid, your workspace moves to the ${plan} plan within a minute.`,
  "It renews every month until you cancel it in the billing portal.",
];

export function checkoutView(d: StartCheckoutResult, ctx: Ctx): HTMLElement {
  const price = `${moneyText(d.price)} per month`;
  if (d.page === "portal") {
    return card({
      label: "Subscription",
      icon: "tag",
      title: "You already have a subscription",
      lede: `You pay for the ${sentence(d.currentPlan)} plan already, so a second subscription would charge you twice. Manage it in the billing portal.`,
      body: [
        facts([["Plan asked for", `${d.planName}, ${price}`]]),
        notice("info", "info", h("p", null, `To move to ${d.planName}, ask the assistant to change the plan; a signed-in person approves it in the web app.`)),
        link(d.url, ctx, "Open the billing portal", "primary"),
      ],
    });
  }
  return card({
    label: "Subscribe",
    icon: "tag",
    title: `Subscribe to ${d.planName}`,
    lede: price,
    pill: d.reused ? pill("Same page as before", "muted") : null,
    body: [
      link(d.url, ctx, "Open the payment page", "primary"),
      d.expiresAt ? sub("The page works until ", moment(d.expiresAt), ".") : null,
      d.reused ? sub("This is the payment page opened before for this plan; no second one was made.") : null,
      section("What happens after payment", bullets(afterPayment(d.planName))),
    ],
  });
}

// portal: the workspace's Stripe billing portal.

export function portalView(d: OpenBillingPortalResult, ctx: Ctx): HTMLElement {
  return card({
    label: "Billing portal",
    icon: "tag",
    title: "Your billing portal",
    lede: "Change the card, download invoices or cancel the subscription, on Stripe's page.",
    body: [
      facts([["Plan", sentence(d.currentPlan)]]),
      link(d.url, ctx, "Open the billing portal", "primary"),
      sub("The link works for a short while; ask the assistant for a fresh one if it has expired."),
    ],
  });
}
