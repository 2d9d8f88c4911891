// Formatting for people. Amounts are never parsed into floating point:
// the decimal text the server sent is grouped and shown digit for digit.
// Moments are shown in the person's time zone (from the host) with the
// zone named, and the exact value stays in <time datetime>.

import { h } from "./dom";
import { toolNames } from "./generated/types";

let locale: string | undefined;
let timeZone: string | undefined;

/** setLocale applies the host's locale and time zone (BCP 47, IANA). */
export function setLocale(l?: string, tz?: string): void {
  locale = l && isLocale(l) ? l : undefined;
  timeZone = tz && isTimeZone(tz) ? tz : undefined;
}

function isLocale(l: string): boolean {
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([l]).length > 0;
  } catch {
    return false;
  }
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** money writes "INR 1,450.00" from "1450.00" and "INR", like the server's Markdown. */
export function money(amount: string, currency: string): string {
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(amount.trim());
  if (!m) return `${currency} ${amount}`;
  const grouped = m[2].replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${currency} ${m[1]}${grouped}${m[3] ?? ""}`;
}

/** count writes a whole number with thousands separators. */
export function count(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString("en-US") : String(n);
}

/** plural: plural(3, "mailbox", "mailboxes") → "3 mailboxes". */
export function plural(n: number, one: string, many: string): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

const isoMoment = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const isoDate = /^\d{4}-\d{2}-\d{2}$/;

export function isMoment(v: unknown): v is string {
  return typeof v === "string" && (isoMoment.test(v) || isoDate.test(v));
}

/** moment writes a date-time or date for people: "Tue 2 Dec 2026, 09:00 CET". */
export function momentText(v: string): string {
  const d = new Date(isoDate.test(v) ? v + "T00:00:00Z" : v);
  if (Number.isNaN(d.getTime())) return v;
  if (isoDate.test(v)) {
    return new Intl.DateTimeFormat(locale ?? "en-GB", { weekday: "short", day: "numeric", month: "short", year: "numeric", timeZone: "UTC" }).format(d);
  }
  return new Intl.DateTimeFormat(locale ?? "en-GB", {
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZone,
    timeZoneName: "short",
  }).format(d);
}

/** moment returns a <time> element for a date-time or date. */
export function moment(v: string): HTMLTimeElement {
  return h("time", { datetime: v }, momentText(v));
}

/** until writes how long is left from now to then: "2 days 3 hours", "14 min 05 s". */
export function until(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(s / 86400);
  const hours = Math.floor((s % 86400) / 3600);
  const mins = Math.floor((s % 3600) / 60);
  const secs = s % 60;
  if (days > 0) return `${plural(days, "day", "days")} ${plural(hours, "hour", "hours")}`;
  if (hours > 0) return `${plural(hours, "hour", "hours")} ${mins} min`;
  return `${mins} min ${String(secs).padStart(2, "0")} s`;
}

/** words turns a field name into words: "openSupportTickets" → "Open support tickets". */
export function words(key: string): string {
  const s = key
    .replace(/_/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .replace(/\burl\b/g, "link")
    .replace(/\bid\b/g, "ID");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** sentence capitalises a server value shown as a label: "not_done" → "Not done". */
export function sentence(v: string): string {
  const s = v.replace(/_/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** lowerFirst puts a label in the middle of a sentence: "Being prepared" becomes "being prepared". */
export function lowerFirst(v: string): string {
  return v.charAt(0).toLowerCase() + v.slice(1);
}

const toolWord = new RegExp(`\\b(?:${toolNames.join("|")})\\b`);

/**
 * forPerson keeps what a server sentence says for the person and drops
 * what it tells the assistant: a parenthesis naming a tool goes, and a
 * sentence naming one ends at the last ":", ";" or "," before the name
 * ("… is not approved: … call approve_sequence …" → "… is not approved."),
 * or goes when nothing comes before it.
 */
export function forPerson(text: string): string {
  return text
    .replace(/\s*\([^()]*\)/g, (m) => (toolWord.test(m) ? "" : m))
    .split(/(?<=[.!?])\s+/)
    .map((s) => {
      const at = s.search(toolWord);
      if (at < 0) return s;
      const head = s.slice(0, at);
      const cut = Math.max(head.lastIndexOf(": "), head.lastIndexOf("; "));
      const end = cut > 0 ? cut : head.lastIndexOf(", ");
      return end > 0 ? s.slice(0, end) + "." : "";
    })
    .filter(Boolean)
    .join(" ");
}
