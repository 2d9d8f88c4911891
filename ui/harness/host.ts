// A test host for the card, built from the MCP Apps SDK's AppBridge: it
// loads the card the way Claude does (a sandboxed iframe, the default MCP
// Apps content security policy), completes the handshake, sends one tool
// call's input and result, answers the card's requests from canned
// results, and records every message the card sends.

import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

/** The default CSP of the MCP Apps spec, for a resource that declares none. */
export const DEFAULT_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'";

export interface Scenario {
  name: string;
  tool: { name: string; title?: string; inputSchema?: unknown };
  input: Record<string, unknown>;
  /** the tool's result; absent when the call was cancelled (cancel). */
  result?: Record<string, unknown>;
  /** when set, the host cancels the call with this reason instead of sending a result. */
  cancel?: string;
  /** canned results for the card's tools/call, by tool name, used in order (the last one repeats). */
  responses?: Record<string, Record<string, unknown>[]>;
}

export interface LogEntry {
  type: "tools/call" | "ui/message" | "ui/open-link" | "ui/update-model-context" | "size-changed" | "initialized" | "log";
  params: unknown;
  at: number;
}

interface Harness {
  log: LogEntry[];
  start(cardHtml: string, scenario: Scenario, theme: "light" | "dark", width: number): Promise<void>;
  /** setTheme switches the host page's theme and tells the card; with variables, also sends them (as Claude does), "" removing one. */
  setTheme(theme: "light" | "dark", variables?: Record<string, string>): Promise<void>;
  setStyles(variables: Record<string, string>, fonts: string): Promise<void>;
  replay(): Promise<void>;
}

declare global {
  interface Window {
    harness: Harness;
  }
}

let bridge: AppBridge | null = null;
let current: Scenario | null = null;
const used: Record<string, number> = {};

function withCSP(html: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${DEFAULT_CSP}">`;
  const i = html.search(/<head[^>]*>/i);
  if (i < 0) throw new Error("the card has no <head>");
  const end = html.indexOf(">", i) + 1;
  return html.slice(0, end) + meta + html.slice(end);
}

function setPageTheme(theme: "light" | "dark"): void {
  document.documentElement.dataset.theme = theme;
}

const harness: Harness = {
  log: [],
  async start(cardHtml, scenario, theme, width) {
    // Each scenario gets a new frame and bridge; the page stays.
    if (bridge) await bridge.close().catch(() => {});
    harness.log = [];
    for (const k of Object.keys(used)) delete used[k];
    current = scenario;
    setPageTheme(theme);
    const frame = document.createElement("iframe");
    frame.title = "VibeSell card";
    frame.setAttribute("sandbox", "allow-scripts");
    frame.style.width = `${width}px`;
    frame.style.height = "40px";
    document.getElementById("slot")!.replaceChildren(frame);

    const b = new AppBridge(
      null,
      { name: "vibesell-test-host", version: "1.0.0" },
      { openLinks: {}, serverTools: {}, logging: {}, message: { text: {} }, updateModelContext: { text: {} } },
      {
        hostContext: {
          theme,
          platform: "web",
          displayMode: "inline",
          availableDisplayModes: ["inline"],
          containerDimensions: { maxHeight: 4000, width },
          locale: "en-GB",
          timeZone: "Europe/Paris",
          toolInfo: { id: 1, tool: { inputSchema: { type: "object" }, ...scenario.tool } as never },
        },
      },
    );
    bridge = b;
    const log = (type: LogEntry["type"], params: unknown) => harness.log.push({ type, params, at: Date.now() });
    b.oncalltool = async (params) => {
      log("tools/call", params);
      const list = current?.responses?.[params.name];
      if (!list || list.length === 0) {
        return { isError: true, content: [{ type: "text", text: `The test host has no result for ${params.name}.` }] };
      }
      const n = used[params.name] ?? 0;
      used[params.name] = n + 1;
      return list[Math.min(n, list.length - 1)] as never;
    };
    b.onmessage = async (params) => {
      log("ui/message", params);
      return {};
    };
    b.onopenlink = async (params) => {
      log("ui/open-link", params);
      return {};
    };
    b.onupdatemodelcontext = async (params) => {
      log("ui/update-model-context", params);
      return {};
    };
    b.onloggingmessage = (params) => log("log", params);
    b.onsizechange = (params) => {
      log("size-changed", params);
      if (params.height) frame.style.height = `${Math.ceil(params.height)}px`;
    };
    const initialized = new Promise<void>((resolve) => {
      b.oninitialized = () => {
        log("initialized", null);
        resolve();
      };
    });

    // The bridge listens before the card loads: the card says ui/initialize
    // as soon as its script runs. The frame's window stays the same object
    // across the srcdoc navigation.
    await b.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
    frame.srcdoc = withCSP(cardHtml);
    await initialized;
    await b.sendToolInput({ arguments: scenario.input });
    if (scenario.cancel !== undefined) await b.sendToolCancelled({ reason: scenario.cancel });
    else await b.sendToolResult(scenario.result as never);
  },
  async setTheme(theme, variables) {
    setPageTheme(theme);
    await bridge!.sendHostContextChange(variables ? { theme, styles: { variables: variables as never } } : { theme });
  },
  async setStyles(variables, fonts) {
    await bridge!.sendHostContextChange({ styles: { variables: variables as never, css: { fonts } } });
  },
  async replay() {
    // What a host does when the conversation is reopened: the same,
    // original result again.
    await bridge!.sendToolResult(current!.result as never);
  },
};

window.harness = harness;
