// What to say and when: the sequence, the first email as a lead gets it
// with the deliverability checks, the campaign, and how long it takes.
// Texts the server wrote partly for the assistant go through forPerson;
// a metric not known is "Not available" with its reason, never 0.

import { campaignCheckLabels, campaignStatusLabels } from "../generated/labels";
import type { CheckFirstEmailResult, EstimateCampaignPlanResult, SaveSequenceResult, StageCampaignResult } from "../generated/types";
import { Child, h } from "../dom";
import { count, forPerson, moment, plural, sentence } from "../format";
import { Tone, bullets, card, facts, na, notice, pill, section, stat } from "../ui";
import { day, row, rows, sub } from "./sending";

function labelled(labels: Readonly<Record<string, string>>, v: string): string {
  return labels[v] ?? sentence(v);
}

// sequence: every step with its wait, and which version is approved.

function when(st: { step: number; waitBusinessDays: number; sameThread: boolean }): string {
  if (st.step === 1) return "Sent first";
  return `${plural(st.waitBusinessDays, "business day", "business days")} after step ${st.step - 1}${st.sameThread ? ", in the same thread" : ""}`;
}

export function sequenceView(d: SaveSequenceResult): HTMLElement {
  const q = d.sequence;
  const older = q.version < q.latestVersion;
  const steps = q.steps ?? [];
  const fields = q.mergeFields ?? [];
  return card({
    label: "Email sequence",
    icon: "mail",
    title: q.name,
    lede: [`Version ${q.version}`, older ? ` (version ${q.latestVersion} is newer)` : "", ` · ${plural(steps.length, "email", "emails")} per person at most`],
    pill: q.approved ? pill("Approved", "ok", "check") : older ? pill("Replaced by a newer version", "muted") : pill("Waiting for your approval", "warn", "clock"),
    body: [
      q.approved
        ? sub("Approved", q.approvedBy ? ` by ${q.approvedBy}` : "", q.approvedAt ? [" on ", moment(q.approvedAt)] : null, ". A campaign sends exactly this version.")
        : older
          ? notice("info", "info", h("p", null, `This version was edited since; only the newest, version ${q.latestVersion}, can be approved.`))
          : notice("info", "shield", h("p", null, `Read every step. Once it reads right, tell the assistant you approve version ${q.version}. Nothing is sent by approving.`)),
      d.changed ? null : sub("Nothing changed: this is the version as it was."),
      h(
        "ol",
        { class: "steps" },
        ...steps.map((st) =>
          h(
            "li",
            { class: "group" },
            h("p", { class: "strong" }, `Step ${st.step}`, h("span", { class: "muted" }, ` · ${when(st)}`)),
            h("div", { class: "email" }, h("div", { class: "meta" }, h("span", null, "Subject: ", st.subject)), h("div", { class: "body" }, st.body)),
          ),
        ),
      ),
      fields.length
        ? section(
            "Merge fields",
            sub(`Against the ${plural(q.leadsCounted, "lead", "leads")} imported.`),
            rows(
              fields.map((f) =>
                row(
                  [
                    h("p", { class: "mono" }, `{{${f.field}}}`),
                    sub(f.leadsLacking === 0 ? "Every lead has it." : `${plural(f.leadsLacking, "lead lacks", "leads lack")} it and would get ${f.receives}.`),
                  ],
                  [
                    f.leadsLacking === 0
                      ? pill("Complete", "ok", "check")
                      : f.fallback === null
                        ? pill("No fallback", "bad", "alert")
                        : pill("Fallback used", "warn"),
                    sub(`Step${(f.steps ?? []).length === 1 ? "" : "s"} ${(f.steps ?? []).join(", ")}`),
                  ],
                ),
              ),
            ),
          )
        : null,
    ],
  });
}

// first_email: the email as one lead gets it, and each check.

const verdicts: Record<string, [string, Tone, string, string]> = {
  pass: ["Passes every check", "ok", "check", "The first email passes every check"],
  warn: ["Warnings", "warn", "alert", "The first email can go, but some things cost replies"],
  fail: ["Blocks the launch", "bad", "x", "The first email has something to fix before launch"],
};
const findingLooks: Record<string, [string, Tone, string]> = { pass: ["Pass", "ok", "check"], warn: ["Warning", "warn", "alert"], fail: ["Fail", "bad", "x"] };
const order: Record<string, number> = { fail: 0, warn: 1, pass: 2 };

export function firstEmailView(d: CheckFirstEmailResult): HTMLElement {
  const [verdictLabel, tone, look, title] = verdicts[d.verdict] ?? verdicts.warn;
  const findings = [...(d.findings ?? [])].sort((a, b) => (order[a.status] ?? 1) - (order[b.status] ?? 1));
  const tally = (s: string) => findings.filter((f) => f.status === s).length;
  return card({
    label: "First-email check",
    icon: "mail",
    title,
    lede: `As ${d.leadName} would get it, from version ${d.version} of the sequence.`,
    pill: pill(verdictLabel, tone, look),
    body: [
      h(
        "div",
        { class: "email" },
        h(
          "div",
          { class: "meta" },
          h("span", null, "From: ", d.from),
          h("span", null, "To: ", d.leadName, " ", h("span", { class: "mono" }, `<${d.lead}>`)),
          h("span", { class: "strong" }, "Subject: ", d.subject),
        ),
        h("div", { class: "body" }, d.text),
      ),
      d.approved ? null : sub(`Version ${d.version} is not approved yet.`),
      section(
        `Checks: ${count(tally("fail"))} failing, ${count(tally("warn"))} with a warning, ${count(tally("pass"))} passing`,
        d.findings === null
          ? na()
          : rows(
              findings.map((f) => {
                const [word, t, icon] = findingLooks[f.status] ?? [sentence(f.status), "muted" as Tone, "info"];
                const fix = f.fix ? forPerson(f.fix) : "";
                return row(
                  [
                    h("p", { class: "strong" }, labelled(campaignCheckLabels, f.check)),
                    h("p", null, forPerson(f.finding)),
                    h("p", { class: "small muted" }, "Checked: ", f.checked),
                    h("p", { class: "small muted" }, "Why it matters: ", f.why),
                    f.fix ? h("p", { class: "small" }, h("strong", null, "How to fix: "), fix || "ask the assistant, which can make the change with you.") : null,
                  ],
                  [pill(word, t, icon)],
                );
              }),
            ),
      ),
      d.verdict === "fail" ? notice("bad", "alert", h("p", null, "A campaign with this email cannot launch until every failing check passes.")) : null,
    ],
  });
}

// campaign: status, schedule, what blocks the launch, and the metrics.

const statusTones: Record<string, [Tone, string?]> = {
  staged: ["muted"],
  scheduled: ["info", "clock"],
  sending: ["ok", "mail"],
  paused: ["warn", "alert"],
  finished: ["muted", "check"],
};

const weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/** daysText: "Monday to Friday", "Every day", "Monday, Wednesday and Friday". */
export function daysText(days: string[]): string {
  const idx = days.map((d) => weekdays.indexOf(d)).sort((a, b) => a - b);
  if (idx.length === 7) return "Every day";
  const name = (i: number) => sentence(weekdays[i] ?? "");
  if (idx.length > 2 && idx.every((v, i) => i === 0 || v === idx[i - 1] + 1)) return `${name(idx[0])} to ${name(idx[idx.length - 1])}`;
  const names = idx.map(name);
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names.join("");
}

type Metrics = StageCampaignResult["campaign"]["metrics"];
type Counted = Metrics["sent"];

const metricNames: [keyof Metrics, string][] = [
  ["sent", "Sent"],
  ["delivered", "Delivered"],
  ["replied", "Replied"],
  ["positiveReplies", "Positive replies"],
  ["bounced", "Bounced"],
  ["unsubscribed", "Unsubscribed"],
];

function metrics(m: Metrics): HTMLElement {
  const all = metricNames.map(([k]) => m[k] as Counted);
  // Emails a crash may have lost are said only when there are some.
  const lost = m.notSentUnknown?.value ?? 0;
  const unknown = all.filter((c) => c.value === null);
  // One reason for every count not known is said once, not six times.
  const shared = unknown.length === all.length && unknown.every((c) => c.why === unknown[0].why) ? unknown[0].why : null;
  const steps = (m.steps ?? []).filter((s) => metricNames.some(([k]) => (s[k as keyof typeof s] as Counted | undefined)?.value != null));
  return section(
    "Results so far",
    shared ? notice("info", "info", h("p", null, "Not measured yet. ", shared)) : null,
    h(
      "div",
      { class: "stats" },
      ...metricNames.map(([k, label]) => {
        const c = m[k] as Counted;
        return stat(label, c.value, c.value === null && !shared ? c.why : null);
      }),
      stat("Opens", m.opens.value),
      lost ? stat("Not sent (unknown)", lost) : null,
    ),
    m.opens.value === null ? sub("Opens: ", m.opens.why) : null,
    lost
      ? sub(
          "Not sent (unknown): the server stopped while sending ",
          lost === 1 ? "this email, so whether it left is not known. It is not sent again, and not counted as sent or delivered." : "these emails, so whether they left is not known. They are not sent again, and not counted as sent or delivered.",
        )
      : null,
    // Per step: a table where seven columns fit their headings whole, and
    // on a narrower card a list, so that no heading breaks inside a word
    // and nothing scrolls sideways (the stylesheet shows one of the two).
    steps.length
      ? [
          h(
            "table",
            { class: "ramp wide-only" },
            h("thead", null, h("tr", null, h("th", { scope: "col" }, "Step"), ...metricNames.map(([, l]) => h("th", { scope: "col" }, l)))),
            h(
              "tbody",
              null,
              ...steps.map((s) =>
                h("tr", null, h("td", null, String(s.step)), ...metricNames.map(([k]) => h("td", null, valueOrNa((s as unknown as Record<string, Counted>)[k])))),
              ),
            ),
          ),
          h(
            "ul",
            { class: "rows narrow-only", "aria-label": "Results by step" },
            ...steps.map((s) =>
              h(
                "li",
                null,
                h(
                  "div",
                  { class: "main" },
                  h("p", { class: "strong" }, `Step ${s.step}`),
                  h(
                    "dl",
                    { class: "pairs small" },
                    ...metricNames.map(([k, label]) => h("div", null, h("dt", null, label), h("dd", null, valueOrNa((s as unknown as Record<string, Counted>)[k])))),
                  ),
                ),
              ),
            ),
          ),
        ]
      : null,
  );
}

function valueOrNa(c: Counted | undefined): Child {
  return c && c.value !== null ? count(c.value) : na();
}

export function campaignView(d: StageCampaignResult): HTMLElement {
  const c = d.campaign;
  const s = c.schedule;
  const [tone, look] = statusTones[c.status] ?? ["muted"];
  const blockers = c.blockers ?? [];
  const allDay = s.windowStart === "00:00" && s.windowEnd === "24:00";
  return card({
    label: "Campaign",
    icon: "mail",
    title: c.name,
    lede: [plural(c.leads, "person", "people"), " · ", plural(c.steps, "email", "emails"), " each at most"],
    pill: pill(labelled(campaignStatusLabels, c.status), tone, look),
    body: [
      c.status === "paused"
        ? notice(
            "warn",
            "alert",
            h("p", { class: "strong" }, "Paused: ", c.pausedReason ? forPerson(c.pausedReason) : "no reason was recorded."),
            c.pausedAutomatically ? h("p", null, "VibeSell paused it to protect your sending reputation. Only a signed-in person in the web app can resume it.") : null,
          )
        : null,
      c.status === "scheduled" && c.firstSendAt ? notice("info", "clock", h("p", null, "The first email goes out ", moment(c.firstSendAt), ".")) : null,
      c.status === "staged"
        ? blockers.length
          ? section(`Before it can launch (${plural(blockers.length, "thing", "things")} to fix)`, bullets(blockers.map(forPerson)))
          : notice("ok", "check", h("p", null, "Nothing blocks the launch. Launching needs your approval in the web app; nothing is sent before then."))
        : null,
      section(
        "Schedule",
        facts([
          ["Days", daysText(s.days ?? [])],
          ["Hours", allDay ? "All day, in each person's own time zone" : `${s.windowStart} to ${s.windowEnd}, in each person's own time zone`],
          ["Per mailbox", `At most ${plural(s.dailyCap, "email", "emails")} a day`],
          ["When someone replies", s.stopForCompany ? "Nobody else at their company gets another email" : "Only that person stops getting emails"],
          ["Sending from", c.mailboxes && c.mailboxes.length ? c.mailboxes.join(", ") + (c.mailboxesTotal > c.mailboxes.length ? ` and ${c.mailboxesTotal - c.mailboxes.length} more` : "") : null],
          ["Sequence", `Version ${c.sequenceVersion}, ${c.sequenceApproved ? "approved" : "not approved yet"}`],
          ["Staged", moment(c.createdAt)],
          ["Launched", c.launchedAt ? moment(c.launchedAt) : h("span", { class: "muted" }, "Not yet")],
        ]),
      ),
      metrics(c.metrics),
    ],
  });
}

// campaign_estimate: how long it takes, and the replies to expect.

export function campaignEstimateView(d: EstimateCampaignPlanResult): HTMLElement {
  return card({
    label: "Campaign plan",
    icon: "gauge",
    title: d.days === null ? "Nothing can be sent with today's capacity" : `${plural(d.days, "sending day", "sending days")} to reach all ${plural(d.leads, "person", "people")}`,
    lede: `${plural(d.steps, "email", "emails")} per person at most, from ${plural(d.mailboxes, "mailbox", "mailboxes")}.`,
    body: [
      d.capacityNote ? notice("info", "info", h("p", null, forPerson(d.capacityNote))) : null,
      h(
        "div",
        { class: "stats" },
        stat("Sending days", d.days),
        stat("Per mailbox", d.perMailboxPerDay, "emails a sending day"),
        stat("In all", d.perDay, "emails a sending day"),
        stat("Replies to expect", `${count(d.repliesLow)} to ${count(d.repliesHigh)}`, `at ${d.replyRateLow}% to ${d.replyRateHigh}% replying`),
      ),
      facts([
        ["First email", day(d.firstSendOn)],
        ["Last person's first email", day(d.lastFirstEmailOn)],
        [d.steps > 1 ? "Last follow-up" : "Last email", day(d.lastSendOn)],
        ["Dates in", d.timeZone],
      ]),
      notice("info", "bulb", h("p", null, forPerson(d.assumption)), /promise/i.test(d.assumption) ? null : h("p", null, "An estimate, not a promise.")),
    ],
  });
}
