// Formatting for people. Amounts are never parsed into floating point:
// the decimal text the server sent is grouped and shown digit for digit.
// Moments are written in one style whatever the host's locale, the one the
// server's own sentences use (vibesell.FormatDate, FormatTimeIn): "Tue 1
// Dec 2026" for a day, "Tue 1 Dec 2026, 15:05 CET" for a moment, in the
// workspace's time zone when the result names one, else the person's (from
// the host, else the browser's), with the zone named. The exact value stays
// in <time datetime>.

import { h } from "./dom";
import { toolNames } from "./generated/types";

let locale: string | undefined;
let timeZone: string | undefined;
let resultZone: string | undefined;

/** setLocale applies the host's locale and time zone (BCP 47, IANA). */
export function setLocale(l?: string, tz?: string): void {
  locale = l && isLocale(l) ? l : undefined;
  timeZone = tz && isTimeZone(tz) ? tz : undefined;
}

/**
 * setResultZone applies the time zone a result is in (the workspace's, its
 * timeZone field), which wins over the person's for that result's moments;
 * undefined when the result names none.
 */
export function setResultZone(tz?: unknown): void {
  resultZone = typeof tz === "string" && isTimeZone(tz) ? tz : undefined;
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

const weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** day writes a calendar day: "Tue 1 Dec 2026" (vibesell.FormatDate). */
function day(y: number, m: number, d: number): string {
  const wd = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  return `${weekdayNames[wd]} ${d} ${monthNames[m - 1]} ${y}`;
}

/** moment writes a date-time or date for people: "Tue 1 Dec 2026, 15:05 CET", "Tue 1 Dec 2026". */
export function momentText(v: string): string {
  if (isoDate.test(v)) {
    // A calendar day is the same day everywhere: no zone to convert to.
    const [y, m, d] = v.split("-").map(Number);
    return day(y, m, d);
  }
  const t = new Date(v);
  if (Number.isNaN(t.getTime())) return v;
  const zone = resultZone ?? timeZone;
  // Numbers only from Intl (the words are ours, so the host's locale
  // changes no word and no order), and the zone's short name in the
  // person's locale ("CET", "PST", "GMT+1").
  const parts: Record<string, string> = {};
  for (const p of new Intl.DateTimeFormat("en-US", {
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone: zone,
    timeZoneName: "short",
  }).formatToParts(t)) {
    parts[p.type] = p.value;
  }
  let zoneName = parts.timeZoneName ?? "";
  try {
    zoneName = new Intl.DateTimeFormat(locale ?? "en-US", { timeZone: zone, timeZoneName: "short" }).formatToParts(t).find((p) => p.type === "timeZoneName")?.value ?? zoneName;
  } catch {
    // the en-US name stays
  }
  return `${day(Number(parts.year), Number(parts.month), Number(parts.day))}, ${parts.hour}:${parts.minute} ${zoneName}`.trim();
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
