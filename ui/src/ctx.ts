// What a view may do besides drawing: call a VibeSell tool through the
// host, tell the conversation something, open a link, show a new result,
// and keep timers that stop when the card is redrawn.

export interface ToolResult {
  content?: Array<{ type: string; text?: string; [k: string]: unknown }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [k: string]: unknown;
}

export interface Ctx {
  /** call calls a VibeSell tool through the host (tools/call). It throws when the host cannot. */
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  /**
   * token takes the one-time decision token the server sent the card for an
   * approval or a question (in a result's _meta, never seen by the model);
   * undefined when the host passed none. A token works once.
   */
  token(subject: string): string | undefined;
  /** show replaces the card with another result (what a call returned). */
  show(result: ToolResult, note?: string): void;
  /** say tells the conversation something in the person's name (ui/message); best effort. */
  say(text: string): Promise<void>;
  /** open asks the host to open a link (ui/open-link). */
  open(url: string): Promise<void>;
  /** announce reads a short status to screen-reader users. */
  announce(text: string): void;
  /** every runs fn every ms until the card is redrawn. */
  every(ms: number, fn: () => void): void;
  /** onShow runs fn when the card becomes visible again after being hidden. */
  onShow(fn: () => void): void;
}

export type View = (data: any, ctx: Ctx) => HTMLElement;

/** The card's own tool (app-only): decides or answers with a token, recorded as clicked. */
export const CLICK_TOOL = "decide_in_card";

/** TOKENS_META_KEY names the decision tokens in a result's _meta (the server's package proof). */
export const TOKENS_META_KEY = "vibesell/decisionTokens";

/** REFUSAL_META_KEY names the code of a refusal in the result's _meta (the server's tools/errors.go). */
export const REFUSAL_META_KEY = "vibesell/refusal";

/** isRefusal tells VibeSell's own refusal (a sentence for the person) from a host's failure. */
export function isRefusal(r: ToolResult): boolean {
  const meta = r._meta as Record<string, unknown> | undefined;
  return !!r.isError && typeof meta?.[REFUSAL_META_KEY] === "string";
}

/** textOf returns a result's text block (the Markdown for the assistant). */
export function textOf(r: ToolResult | undefined): string {
  const t = r?.content?.find((c) => c.type === "text");
  return typeof t?.text === "string" ? t.text : "";
}
