// The VibeSell card: one MCP App that shows every tool result to the
// person, by its kind. The host (Claude, ChatGPT…) loads this document in a
// sandboxed frame under each VibeSell tool call and sends it the call's
// arguments and result; the card draws the result and, for questions and
// approvals, acts on the person's click through the host.

import "./jitless";
import { App, PostMessageTransport, applyDocumentTheme, applyHostFonts, applyHostStyleVariables, type McpUiHostContext } from "@modelcontextprotocol/ext-apps";

import { Ctx, TOKENS_META_KEY, ToolResult, View, textOf } from "./ctx";
import { h, plain } from "./dom";
import { setLocale, setResultZone } from "./format";
import { card, notice } from "./ui";
import { approvalView, approvalsView } from "./views/approval";
import { leadCountView, leadPreviewView, targetView } from "./views/audience";
import { checkoutView, plansView, portalView } from "./views/billing";
import { campaignEstimateView, campaignView, firstEmailView, sequenceView } from "./views/campaigns";
import { choiceView } from "./views/choice";
import { leadView } from "./views/lead";
import { repliesView } from "./views/replies";
import { genericView, loading } from "./views/generic";
import { domainQuoteView, emailStepView, sendingChoiceView, sendingSetupView, sizingView, warmedShelfView, warmupView } from "./views/sending";
import { memoryView, offerView, playbookView, supportView, workspaceView } from "./views/workspace";

const views: Record<string, View> = {
  choice: choiceView,
  sending_choice: sendingChoiceView,
  email_step: emailStepView,
  approval: approvalView,
  approvals: approvalsView,
  sending_setup: sendingSetupView,
  sizing: sizingView,
  domain_quote: domainQuoteView,
  warmed_shelf: warmedShelfView,
  warmup: warmupView,
  workspace: workspaceView,
  memory: memoryView,
  offer: offerView,
  playbook: playbookView,
  support: supportView,
  target: targetView,
  lead_count: leadCountView,
  lead_preview: leadPreviewView,
  sequence: sequenceView,
  first_email: firstEmailView,
  campaign: campaignView,
  campaign_estimate: campaignEstimateView,
  plans: plansView,
  checkout: checkoutView,
  portal: portalView,
  replies: repliesView,
  lead: leadView,
};

const root = document.getElementById("root") as HTMLElement;

// Until (unless) the host says which theme it shows, follow the system's
// (the stylesheet's color-scheme is "light dark" until then).
document.documentElement.dataset.theme = window.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
const live = document.getElementById("live") as HTMLElement;

const app = new App({ name: "VibeSell card", version: "1.0.0" }, {}, { autoResize: true });

// The one-time decision tokens the server sent for what the card shows,
// by approval or card id: the latest one for each.
const tokens = new Map<string, string>();
function remember(result: ToolResult | undefined): void {
  const t = (result?._meta as Record<string, unknown> | undefined)?.[TOKENS_META_KEY];
  if (!t || typeof t !== "object") return;
  for (const [subject, token] of Object.entries(t as Record<string, unknown>)) {
    if (typeof token === "string") tokens.set(subject, token);
  }
}

let cleanups: Array<() => void> = [];
let showHandlers: Array<() => void> = [];
let hasResult = false;

function reset(): void {
  for (const c of cleanups) c();
  cleanups = [];
  showHandlers = [];
}

const ctx: Ctx = {
  async call(name, args) {
    const result = (await app.callServerTool({ name, arguments: args })) as ToolResult;
    remember(result);
    return result;
  },
  token(subject) {
    const t = tokens.get(subject);
    tokens.delete(subject);
    return t;
  },
  show(result, note) {
    render(result);
    if (note) {
      // After the person's own action: say what happened and move focus
      // to the new card, so keyboard users are not left on a removed button.
      ctx.announce(note);
      root.querySelector<HTMLElement>("h1")?.focus();
    }
  },
  async say(text) {
    try {
      await app.sendMessage({ role: "user", content: [{ type: "text", text }] });
    } catch {
      // The answer is on the server already; the message is only a nudge.
    }
  },
  async open(url) {
    try {
      const res = await app.openLink({ url });
      if (res && (res as { isError?: boolean }).isError) throw new Error("refused");
    } catch {
      ctx.announce("The link could not be opened from this card. Copy the address shown next to the button.");
    }
  },
  announce(text) {
    live.textContent = "";
    // A fresh text node is what makes screen readers speak it again.
    setTimeout(() => (live.textContent = plain(text)), 30);
  },
  every(ms, fn) {
    const id = setInterval(fn, ms);
    cleanups.push(() => clearInterval(id));
  },
  onShow(fn) {
    showHandlers.push(fn);
  },
};

function render(result: ToolResult): void {
  reset();
  hasResult = true;
  let node: HTMLElement;
  try {
    node = view(result);
  } catch (err) {
    console.warn("VibeSell card: could not draw this result", err);
    node = card({
      label: "Result",
      icon: "info",
      title: "This result cannot be shown here",
      body: [h("p", { class: "lede" }, "The assistant has the full result and can tell you what it says.")],
    });
  }
  root.replaceChildren(node);
}

function view(result: ToolResult): HTMLElement {
  const data = result.structuredContent;
  // A result that names the workspace's time zone shows its moments in it.
  // (the structured timeZone of a kind that has one, else the zone the
  // server says the result's text wrote its moments in).
  const metaZone = (result._meta as Record<string, unknown> | undefined)?.["vibesell/timeZone"];
  setResultZone((data && typeof data === "object" ? (data as { timeZone?: unknown }).timeZone : undefined) ?? metaZone);
  if (result.isError || !data || typeof data !== "object") {
    const text = textOf(result);
    return card({
      label: result.isError ? "Not done" : "Result",
      icon: result.isError ? "alert" : "info",
      title: result.isError ? "VibeSell could not do this" : "Result",
      body: [text ? notice(result.isError ? "warn" : "info", "info", h("p", { class: "pre" }, text)) : h("p", { class: "muted" }, "Nothing to show.")],
    });
  }
  const kind = typeof data.kind === "string" ? data.kind : "";
  return (views[kind] ?? genericView)(data, ctx);
}

function applyContext(c: McpUiHostContext | undefined): void {
  if (!c) return;
  if (c.theme === "dark" || c.theme === "light") {
    // The theme and the CSS color-scheme both: Chromium paints a frame
    // whose color-scheme differs from its <iframe>'s (which a dark host
    // page declares dark) on an opaque canvas of its own scheme's colour,
    // the white block a dark host showed at the card's corners. And inside
    // the frame, prefers-color-scheme is the system's, not the host's, so
    // the stylesheet's "light dark" alone would pick light on a dark host
    // under a light system.
    applyDocumentTheme(c.theme);
  }
  if (c.styles?.variables) applyHostStyleVariables(c.styles.variables);
  if (c.styles?.css?.fonts) applyHostFonts(c.styles.css.fonts);
  if (c.locale !== undefined || c.timeZone !== undefined) {
    const all = app.getHostContext();
    setLocale(all?.locale, all?.timeZone);
  }
}

// Every handler is in place before connect(): the host sends tool-input and
// tool-result once, right after the handshake.
app.addEventListener("toolinput", () => {
  if (hasResult) return;
  const name = app.getHostContext()?.toolInfo?.tool?.title ?? app.getHostContext()?.toolInfo?.tool?.name;
  root.replaceChildren(loading(name ? `${name}: working on it…` : "Working on it…"));
});
app.addEventListener("toolresult", (r) => {
  remember(r as ToolResult);
  render(r as ToolResult);
});
app.addEventListener("toolcancelled", (p) => {
  if (hasResult) return;
  reset();
  root.replaceChildren(
    card({
      label: "Cancelled",
      icon: "x",
      title: "This was cancelled",
      lede: p.reason ? p.reason : "Nothing was done.",
    }),
  );
});
app.addEventListener("hostcontextchanged", (c) => applyContext(c));
app.onteardown = async () => {
  reset();
  return {};
};

// A card that was hidden (another tab, scrolled away and suspended, the
// conversation reopened) re-reads what may have changed when seen again.
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") for (const fn of showHandlers) fn();
});

app
  .connect(new PostMessageTransport(window.parent, window.parent))
  .then(() => applyContext(app.getHostContext()))
  .catch((err) => {
    console.warn("VibeSell card: no host connection", err);
    root.replaceChildren(
      card({ label: "Card", icon: "info", title: "VibeSell", lede: "This card shows results inside a conversation. The assistant has the result in text." }),
    );
  });

