// Sending setup: where the emails go out from, what it costs, when it is
// ready. Prices and days are shown as the server sent them; a null is
// "Not available" unless the field says what null means.

import { Ctx } from "../ctx";
import { domainStateLabels, mailboxStateLabels, sendingSourceLabels, sandboxShortcutLabels } from "../generated/labels";
import type {
  CheckDomainsResult,
  ChooseSendingSourceResult,
  GetSendingSetupResult,
  ListWarmedDomainsResult,
  ProposeEmailResult,
  SizeSendingCapacityResult,
  StartWarmupResult,
} from "../generated/types";
import { Child, h } from "../dom";
import { count, moment, plural, sentence } from "../format";
import { Money, Tone, bullets, card, facts, moneyText, na, notice, pill, section, stat } from "../ui";

type Step = NonNullable<GetSendingSetupResult["nextStep"]>;

function price(m: Money | null | undefined, per?: string): Child {
  if (!m) return na();
  return per ? `${moneyText(m)} ${per}` : moneyText(m);
}

export function day(v: string | null | undefined): Child {
  return v ? moment(v) : na();
}

// A next step that names a tool is an instruction for the assistant
// ("Call propose_email…"), not for the person: only one without a tool is
// shown.
function nextStep(step: Step | null | undefined): Child {
  if (!step || !step.why || step.tool) return null;
  return notice("info", "arrow", h("p", { class: "strong" }, "Next step"), h("p", null, step.why));
}

function sandboxNote(on: boolean | undefined, what = "Nothing here is real: it comes from the sandbox. Nothing is registered, created or billed."): Child {
  return on ? notice("warn", "info", h("p", null, h("strong", null, "Sandbox. "), what)) : null;
}

export function rows(items: Child[]): HTMLElement {
  return h("ul", { class: "rows" }, ...items);
}

export function row(main: Child[], side?: Child[]): HTMLElement {
  return h("li", null, h("div", { class: "main" }, ...main), side ? h("div", { class: "side" }, ...side) : null);
}

export function sub(...parts: Child[]): HTMLElement {
  return h("p", { class: "muted small" }, ...parts);
}

// sending_choice: what the person picked (source or domains), settled.

export function sendingChoiceView(
  d: ChooseSendingSourceResult,
  _ctx: Ctx,
): HTMLElement {
  const chosen = d.chosen ?? [];
  const isDomains = d.decision === "domains" || d.decision === "warmed_domains";
  const title = isDomains
    ? `${plural(d.domains?.length ?? chosen.length, "domain", "domains")} picked`
    : chosen.length
      ? chosen.map((c) => c.label).join(", ")
      : "Your choice";
  const body: Child[] = [];
  if (d.meaning) body.push(h("p", null, d.meaning));
  if (isDomains && d.domains) {
    body.push(
      section(
        d.decision === "warmed_domains" ? "Already-warmed domains" : "New domains",
        rows(
          d.domains.map((p) =>
            row(
              [
                h("p", { class: "addr" }, p.domain),
                sub(plural(p.mailboxes, "mailbox", "mailboxes"), " at ", price(p.mailboxPrice, "each per month"), " · ready ", moment(p.readyOn), " if ordered today"),
                p.origin === "warmed"
                  ? sub("Registered ", day(p.registeredOn), " · reputation ", p.reputation === null ? "not measured" : `${p.reputation} of 100`)
                  : null,
              ],
              [h("p", { class: "strong" }, price(p.yearlyPrice)), sub("per year")],
            ),
          ),
        ),
      ),
    );
  } else if (chosen.some((c) => c.id === null)) {
    body.push(facts([["In your words", chosen.find((c) => c.id === null)?.label]]));
  }
  body.push(sandboxNote(d.provider === "sandbox", "The domains were checked by the sandbox, not by real registries."));
  if (d.chosenAt) body.push(sub("Answered ", moment(d.chosenAt)));
  body.push(nextStep(d.nextStep));
  return card({
    label: isDomains ? "Sending domains" : "Sending addresses",
    icon: "globe",
    title,
    pill: pill("Recorded", "ok", "check"),
    body,
  });
}

// email_step: the exact addresses that will be created.

export function emailStepView(
  d: ProposeEmailResult,
  _ctx: Ctx,
): HTMLElement {
  const list = d.addresses;
  return card({
    label: "Sending addresses",
    icon: "mail",
    title: list ? `${plural(list.length, "address", "addresses")} planned` : "Sending addresses planned",
    lede: d.styleLabel ? ["Style: ", d.styleLabel] : null,
    pill: pill("Planned, not ordered", "info"),
    body: [
      h("div", { class: "stats" }, stat("Mailboxes per month", price(d.monthlyCost)), stat("Domains per year", price(d.yearlyCost))),
      section(
        "Created when the order is approved",
        list === null
          ? na()
          : rows(
              list.map((a) =>
                row(
                  [h("p", { class: "addr" }, a.address), sub(a.senderName ? `Signed ${a.senderName}` : "Written by you", a.prewarmed ? " · already warmed" : "")],
                  [h("p", null, price(a.monthlyPrice)), sub("per month")],
                ),
              ),
            ),
      ),
      facts([
        ["Ready if ordered today", day(d.readyOn)],
        ["Full volume from", day(d.fullVolumeOn)],
        ["On the domains", d.domains ? d.domains.join(", ") : null],
      ]),
      d.chosenAt ? sub("Answered ", moment(d.chosenAt)) : null,
      nextStep(d.nextStep),
    ],
  });
}

// domain_quote: can these names be had, and for how much.

export function domainQuoteView(
  d: CheckDomainsResult,
  _ctx: Ctx,
): HTMLElement {
  const quotes = d.quotes ?? [];
  // Free at the registry but not a name VibeSell sells: not shown as good news.
  const availability = (a: boolean | null, sold: boolean): HTMLElement =>
    a === true ? pill("Available", sold ? "ok" : "muted", "check") : a === false ? pill("Taken", "bad", "x") : pill("Unknown", "warn", "question");
  return card({
    label: "Domain check",
    icon: "globe",
    title: `${plural(quotes.length, "name", "names")} checked`,
    lede: ["Checked ", moment(d.checkedAt), d.sandbox ? " in the sandbox" : " with the domain registries"],
    body: [
      d.quotes === null
        ? na()
        : rows(
            quotes.map((q) =>
              row(
                [
                  h("p", { class: "addr" }, q.domain),
                  q.reason ? sub(q.reason) : null,
                  q.available === null && !q.reason ? sub("The registry did not answer in time. This does not mean it is taken.") : null,
                ],
                [availability(q.available, q.pricePerYear !== null), h("p", { class: "small", style: "margin-top:6px" }, q.pricePerYear ? price(q.pricePerYear, "per year") : "Not sold by VibeSell")],
              ),
            ),
          ),
      sandboxNote(d.sandbox, "These answers come from the sandbox, not from real registries."),
    ],
  });
}

// warmed_shelf: domains that are already warm, on offer now.

export function warmedShelfView(
  d: ListWarmedDomainsResult,
  _ctx: Ctx,
): HTMLElement {
  const list = d.domains ?? [];
  return card({
    label: "Warmed shelf",
    icon: "flame",
    title: `${plural(d.total, "already-warmed domain", "already-warmed domains")} on offer`,
    lede: "Domains whose mailboxes are already warmed up.",
    body: [
      d.domains === null
        ? na()
        : list.length === 0
          ? h("p", { class: "muted" }, "Nothing on this page.")
          : rows(
              list.map((w) =>
                row(
                  [
                    h("p", { class: "addr" }, w.domain),
                    sub(`${count(w.ageDays)} days old (registered `, moment(w.registeredOn), ") · ", plural(w.mailboxes, "mailbox", "mailboxes")),
                    sub("Reputation ", w.reputation === null ? "not measured" : `${w.reputation} of 100`, " · handed over ", moment(w.readyOn), " if ordered today"),
                  ],
                  [h("p", { class: "strong" }, price(w.monthlyPrice)), sub("per month"), sub("plus ", price(w.yearlyPrice), " per year")],
                ),
              ),
            ),
      d.nextCursor ? sub(`Showing ${count(list.length)} of ${count(d.total)}. Ask the assistant for the next page.`) : null,
      sandboxNote(d.sandbox, "This is the sandbox's shelf, not a real one."),
    ],
  });
}

// sizing: the mailboxes and domains a volume needs, and their cost.

const sources: Record<string, string> = {
  already_warmed: "Already-warmed addresses",
  own_names: "New addresses under your brand",
  other: "In your own words",
};

export function sizingView(
  d: SizeSendingCapacityResult,
  _ctx: Ctx,
): HTMLElement {
  const fromLeads = d.leadCount !== null;
  return card({
    label: d.confirmed ? "Sizing recorded" : "Sizing",
    icon: "gauge",
    title: `${plural(d.mailboxes, "mailbox", "mailboxes")} on ${plural(d.domains, "domain", "domains")}`,
    lede: `For ${count(d.dailyVolume)} emails per business day, ${count(d.emailsPerMailbox)} per mailbox, ${count(d.mailboxesPerDomain)} mailboxes per domain.`,
    pill: d.confirmed ? pill("Recorded", "ok", "check") : pill("Calculation only", "muted"),
    body: [
      h(
        "div",
        { class: "stats" },
        stat("Per month", price(d.monthlyCost), [plural(d.mailboxes, "mailbox", "mailboxes"), " at ", price(d.mailboxPrice)]),
        stat("Per year", price(d.yearlyCost), [plural(d.domains, "domain", "domains"), " at ", price(d.domainPrice)]),
        stat("Full volume from", moment(d.fullVolumeOn), ["Ready ", moment(d.readyOn)]),
      ),
      facts([
        ["Addresses", sources[d.source] ?? sentence(d.source)],
        ["Emails per business day", d.dailyVolume],
        ...(fromLeads
          ? ([
              ["Leads", d.leadCount],
              ["Emails per lead", d.emailsPerLead],
              ["Emails in all", d.totalEmails],
              ["Reach them by", day(d.deadline)],
              ["Business days of sending", d.sendingDays],
            ] as [string, unknown][])
          : []),
      ]),
      d.confirmed ? (d.confirmedAt ? sub("Recorded ", moment(d.confirmedAt)) : null) : sub("Not recorded: a calculation only."),
    ],
  });
}

// sending_setup: everything about the sending addresses now.

type DNSCheck = NonNullable<NonNullable<GetSendingSetupResult["domains"]>[number]["dns"]>[number];

// The words are sending's (generated); the tones are the card's.
const domainTones: Record<string, Tone> = { chosen: "muted", preparing: "info", ready: "ok" };
const mailboxTones: Record<string, Tone> = { planned: "muted", preparing: "info", ready: "info", warming: "warn", warm: "ok" };

function statusOf(labels: Readonly<Record<string, string>>, tones: Record<string, Tone>, s: string): HTMLElement {
  const label = labels[s];
  return label ? pill(label, tones[s] ?? "muted") : pill(sentence(s), "muted");
}

/** sourceText says where the addresses come from, with the person's own words when they gave some. */
export function sourceText(id: string, own: string | null | undefined): string {
  const label = sendingSourceLabels[id] ?? sentence(id);
  return own ? `${label}: “${own}”` : label;
}

function dnsLine(c: DNSCheck): HTMLElement {
  const verdict = c.ok === true ? pill("Checks out", "ok", "check") : c.ok === false ? pill("Not as expected", "bad", "x") : pill("Could not check", "warn");
  return h("li", null, h("div", { class: "main" }, h("span", { class: "dns-type" }, c.type), h("span", { class: "mono small muted" }, c.host)), h("div", { class: "side" }, verdict));
}

/** more counts what a list leaves out of total: "and 3 more". */
function more(total: number, shown: number): Child {
  return total > shown ? h("p", { class: "muted small" }, `and ${count(total - shown)} more`) : null;
}

export function sendingSetupView(
  d: GetSendingSetupResult,
  _ctx: Ctx,
): HTMLElement {
  const domains = d.domains ?? [];
  const mailboxes = d.mailboxes ?? [];
  return card({
    label: "Sending setup",
    icon: "layers",
    title: d.readyToSendOn ? ["Ready to send at full volume from ", moment(d.readyToSendOn)] : "Your sending setup",
    body: [
      facts([
        ["Sending from", d.source ? sourceText(d.source.id, d.source.text) : h("span", { class: "muted" }, "Not chosen yet")],
        [
          "Sizing",
          d.sizing
            ? `${count(d.sizing.dailyVolume)} emails per business day on ${plural(d.sizing.mailboxes, "mailbox", "mailboxes")} and ${plural(d.sizing.domains, "domain", "domains")}`
            : h("span", { class: "muted" }, "Not confirmed yet"),
        ],
        ...(d.sizing
          ? ([["Cost", `${moneyText(d.sizing.monthlyCost)} per month and ${moneyText(d.sizing.yearlyCost)} per year`]] as [string, unknown][])
          : []),
        ["Full volume from", d.readyToSendOn ? moment(d.readyToSendOn) : null],
      ]),
      section(
        `Domains (${count(d.domainsTotal)})`,
        d.domains === null
          ? na()
          : domains.length === 0
            ? h("p", { class: "muted" }, "No domain picked yet.")
            : h(
                "ul",
                { class: "plain" },
                ...domains.map((x) =>
                  h(
                    "li",
                    { class: "group" },
                    h(
                      "div",
                      { class: "status-line", style: "justify-content:space-between;flex-wrap:wrap" },
                      h("p", { class: "addr" }, x.domain),
                      statusOf(domainStateLabels, domainTones, x.status),
                    ),
                    sub(x.origin === "warmed" ? "Already warmed" : "New", " · ", price(x.yearlyPrice, "per year"), x.readyOn ? [" · ready ", moment(x.readyOn)] : ""),
                    x.dns === null ? null : x.dns.length ? h("ul", { class: "rows dns", "aria-label": `DNS records of ${x.domain}` }, ...x.dns.map(dnsLine)) : null,
                    x.dnsCheckedWith === "sandbox" ? sub("DNS answered by the sandbox.") : null,
                    x.sandboxReadyAt ? sub(sandboxShortcutLabels.sandbox_ready ?? "", " · ", moment(x.sandboxReadyAt)) : null,
                  ),
                ),
              ),
        more(d.domainsTotal, domains.length),
      ),
      section(
        `Mailboxes (${count(d.mailboxesTotal)})`,
        d.mailboxes === null
          ? na()
          : mailboxes.length === 0
            ? h("p", { class: "muted" }, "No address planned yet.")
            : rows(
                mailboxes.map((m) =>
                  row(
                    [
                      h("p", { class: "addr" }, m.address),
                      sub(m.senderName ? `Signed ${m.senderName}` : "No sender name", " · ", price(m.monthlyPrice, "per month"), m.prewarmed ? " · already warmed" : ""),
                      m.warmup
                        ? [
                            h("div", {
                              class: "bar",
                              role: "progressbar",
                              "aria-valuemin": 0,
                              "aria-valuemax": 100,
                              "aria-valuenow": m.warmup.percent,
                              "aria-label": `Warmup of ${m.address}`,
                              style: `--p:${Math.max(0, Math.min(100, m.warmup.percent))}%`,
                            }),
                            sub(`Warmup day ${m.warmup.day} of ${m.warmup.of} · ${plural(m.warmup.todayVolume, "warmup email", "warmup emails")} today`),
                          ]
                        : null,
                      m.fullVolumeOn && m.status !== "warm" ? sub("Full volume from ", moment(m.fullVolumeOn)) : null,
                      m.sandboxReadyAt ? sub(sandboxShortcutLabels.sandbox_ready ?? "", " · ", moment(m.sandboxReadyAt)) : null,
                    ],
                    [statusOf(mailboxStateLabels, mailboxTones, m.status)],
                  ),
                ),
              ),
        more(d.mailboxesTotal, mailboxes.length),
      ),
      d.connected && d.connected.length
        ? section(
            `Your own mailboxes (${count(d.connectedTotal)})`,
            rows(
              d.connected.map((c) =>
                row(
                  [
                    h("p", { class: "addr" }, c.address),
                    sub(`Sends through ${c.smtp.host}:${c.smtp.port} · reads replies from ${c.imap.host}:${c.imap.port}`),
                  ],
                  [],
                ),
              ),
            ),
          )
        : null,
      sandboxNote(d.sandbox, "These domains and mailboxes exist only in the sandbox: nothing real was registered, created or checked."),
      nextStep(d.nextStep),
    ],
  });
}

// warmup: which mailboxes started warming up, and the ramp.

export function warmupView(
  d: StartWarmupResult,
  _ctx: Ctx,
): HTMLElement {
  const started = d.started ?? [];
  const ramp = d.ramp;
  const maxPer = ramp && ramp.length ? Math.max(...ramp.map((r) => r.perMailbox)) : 0;
  return card({
    label: "Warmup",
    icon: "flame",
    title: started.length ? `Warmup started for ${plural(d.startedTotal, "mailbox", "mailboxes")}` : "No new warmup started",
    lede: started.length && d.fullVolumeOn ? ["They can send at full volume from ", moment(d.fullVolumeOn), "."] : null,
    pill: started.length ? pill("Started", "ok", "check") : null,
    body: [
      started.length ? section("Started now", bullets(started), more(d.startedTotal, started.length)) : null,
      d.alreadyWarming && d.alreadyWarming.length ? section("Already warming up", bullets(d.alreadyWarming), more(d.alreadyWarmingTotal, d.alreadyWarming.length)) : null,
      d.notReady && d.notReady.length
        ? section("Still being prepared", rows(d.notReady.map((n) => row([h("p", { class: "mono" }, n.address)], [sub("ready ", moment(n.readyOn))]))))
        : null,
      d.prewarmed && d.prewarmed.length ? section("Already warm, no warmup needed", bullets(d.prewarmed), more(d.prewarmedTotal, d.prewarmed.length)) : null,
      ramp && ramp.length
        ? section(
            "The ramp",
            h(
              "p",
              null,
              `Each mailbox sends ${plural(ramp[0].perMailbox, "warmup email", "warmup emails")} on day 1 (`,
              moment(ramp[0].date),
              `), rising to ${count(ramp[ramp.length - 1].perMailbox)} on day ${ramp[ramp.length - 1].day} (`,
              moment(ramp[ramp.length - 1].date),
              ").",
            ),
            h(
              "div",
              { class: "ramp-bars", "aria-hidden": "true" },
              ...ramp.map((r) => h("span", { style: `--p:${maxPer ? Math.round((100 * r.perMailbox) / maxPer) : 0}%` })),
            ),
            h(
              "details",
              null,
              h("summary", null, "Every day of the ramp"),
              h(
                "table",
                { class: "ramp" },
                h("thead", null, h("tr", null, h("th", { scope: "col" }, "Day"), h("th", { scope: "col" }, "Date"), h("th", { scope: "col" }, "Each mailbox"), h("th", { scope: "col" }, "In all"))),
                h(
                  "tbody",
                  null,
                  ...ramp.map((r) => h("tr", null, h("td", null, String(r.day)), h("td", null, moment(r.date)), h("td", null, count(r.perMailbox)), h("td", null, count(r.total)))),
                ),
              ),
            ),
          )
        : null,
      sandboxNote(d.provider === "sandbox", "No real warmup emails are sent."),
    ],
  });
}
