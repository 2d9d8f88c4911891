// Who to write to: the target and its filters, how many people the lead
// directory has for it, and a preview of some of them. Counts are exact;
// addresses stay masked until imported; a result built on the sample
// directory says so first.

import type { EstimateLeadPoolResult, PreviewLeadSampleResult, SaveTargetResult } from "../generated/types";
import { Child, h } from "../dom";
import { count, moment, plural } from "../format";
import { Row, card, facts, na, notice, pill, section } from "../ui";
import { row, rows, sub } from "./sending";

type Filters = NonNullable<SaveTargetResult["target"]["filters"]>;
type Import = NonNullable<EstimateLeadPoolResult["lastImport"]>;

/** sampleNote is said plainly wherever a result comes from the sample directory. */
function sampleNote(directory: string): Child {
  return directory === "sample"
    ? notice(
        "warn",
        "alert",
        h("p", null, h("strong", null, "Sample directory: made-up contacts that can never be emailed. ")),
        h("p", null, "They show how VibeSell works. Real people come once a real lead directory is loaded on this server."),
      )
    : null;
}

function filterFacts(f: Filters): HTMLElement {
  const list = (v: string[] | null) => (v && v.length ? v.join(", ") : null);
  const rowsOf: Row[] = (
    [
      ["Job title contains", list(f.titles)],
      ["Seniority", list(f.seniorities)],
      ["Department", list(f.departments)],
      ["Industry", list(f.industries)],
      ["Company size (employees)", list(f.companySizes)],
      ["Country", list(f.countries?.map((c) => c.name) ?? null)],
      ["Region", list(f.regions)],
      ["Companies left out", list([...(f.excludeCompanies ?? []), ...(f.excludeCompanyDomains ?? [])])],
      ["Not contacted in the last", f.notContactedDays > 0 ? plural(f.notContactedDays, "day", "days") : null],
    ] as Row[]
  ).filter(([, v]) => v !== null);
  return rowsOf.length ? facts(rowsOf) : h("p", { class: "muted" }, "No filter: everyone in the directory.");
}

// target: the ideal customer in words, as filters, and whether confirmed.

export function targetView(d: SaveTargetResult): HTMLElement {
  const t = d.target;
  const f = t.filters;
  return card({
    label: "Who to write to",
    icon: "list",
    title: t.who ?? "Who to write to",
    pill: !f ? pill("No filters yet", "muted") : t.confirmed ? pill("Confirmed", "ok", "check") : pill("Not confirmed", "warn", "clock"),
    body: [
      t.confirmationWithdrawn
        ? notice("warn", "alert", h("p", { class: "strong" }, "The filters changed, so your earlier confirmation no longer holds."), h("p", null, "Counting, previewing and importing wait until you confirm these filters."))
        : null,
      facts([
        ["Their problem", t.problem ?? h("span", { class: "muted" }, "Not described yet")],
        ["Leave out", t.exclusions ?? h("span", { class: "muted" }, "Nobody named")],
      ]),
      section(
        "Filters",
        f ? [h("p", null, f.description), filterFacts(f)] : h("p", { class: "muted" }, "No filters saved yet."),
        f
          ? t.confirmed && t.confirmedAt
            ? sub(`Version ${t.filtersVersion}, confirmed `, moment(t.confirmedAt))
            : sub(`Version ${t.filtersVersion}, not confirmed yet: counting, previewing and importing wait for your confirmation.`)
          : null,
      ),
    ],
  });
}

// lead_count: from the matches down to who can be imported, each step shown.

const minus: Record<string, string> = {
  suppressed: "Suppressed: unsubscribed, bounced, complained or blocked",
  already_imported: "Already in this workspace",
  invalid_or_role: "Invalid addresses, or ones reaching a team (info@, sales@…)",
};

function importProgress(im: Import): Child {
  const skipped = im.skippedExisting + im.skippedSuppressed + im.skippedInvalid;
  return section(
    "Last import",
    im.running
      ? [
          h("div", {
            class: "bar",
            role: "progressbar",
            "aria-valuemin": 0,
            "aria-valuemax": im.requested,
            "aria-valuenow": im.imported,
            "aria-label": "Import progress",
            style: `--p:${im.requested ? Math.min(100, Math.round((100 * im.imported) / im.requested)) : 0}%`,
          }),
          sub(`Running: ${count(im.imported)} of ${count(im.requested)} imported so far · started `, moment(im.startedAt)),
        ]
      : h("p", null, `${count(im.imported)} of ${plural(im.requested, "person", "people")} imported`, im.finishedAt ? [", finished ", moment(im.finishedAt)] : null, "."),
    skipped
      ? sub(
          `Skipped: ${count(im.skippedExisting)} already in the workspace, ${count(im.skippedSuppressed)} suppressed, ${count(im.skippedInvalid)} invalid or team addresses.`,
        )
      : null,
  );
}

export function leadCountView(d: EstimateLeadPoolResult): HTMLElement {
  const days = d.filters.notContactedDays;
  const steps = (d.subtractions ?? []).filter((s) => s.reason !== "contacted_in_window" || days > 0 || s.count > 0);
  const line = (label: Child, n: Child, cls?: string) => h("tr", { class: cls ?? null }, h("th", { scope: "row" }, label), h("td", null, n));
  return card({
    label: "Lead pool",
    icon: "list",
    title: `${plural(d.available, "person", "people")} available to import`,
    lede: d.filters.description,
    body: [
      sampleNote(d.directory),
      h(
        "table",
        { class: "ledger" },
        h(
          "tbody",
          null,
          line("Match the target", count(d.matched)),
          ...steps.map((s) =>
            line(
              s.reason === "contacted_in_window" ? `Contacted in the last ${plural(days, "day", "days")}` : minus[s.reason] ?? s.reason,
              `− ${count(s.count)}`,
            ),
          ),
          line("Available to import", count(d.available), "total"),
        ),
      ),
      sub(`Every count is exact. Filters version ${d.filtersVersion}.`),
      d.lastImport ? importProgress(d.lastImport) : null,
    ],
  });
}

// lead_preview: some of the people an import would bring in, and why.

export function leadPreviewView(d: PreviewLeadSampleResult): HTMLElement {
  const list = d.contacts ?? [];
  return card({
    label: "Lead preview",
    icon: "list",
    title: `${plural(list.length, "person", "people")} of ${count(d.available)} available`,
    lede: "Addresses stay hidden until the people are imported. The same filters always show the same people.",
    body: [
      sampleNote(d.directory),
      d.contacts === null
        ? na()
        : list.length === 0
          ? h("p", { class: "muted" }, "No one is available with these filters. Widen them, then confirm them again.")
          : rows(
              list.map((c) =>
                row([
                  h("p", { class: "strong" }, c.name),
                  sub(`${c.title} at ${c.company} · ${c.country}`),
                  h("p", { class: "mono small" }, c.maskedEmail),
                  c.why && c.why.length ? h("p", { class: "small" }, "Why they match: ", c.why.join(", ")) : null,
                ]),
              ),
            ),
    ],
  });
}
