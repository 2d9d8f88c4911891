// Checks a running VibeSell server with the official MCP TypeScript SDK
// client, over streamable HTTP and over stdio. e2e/sdk_test.go runs it;
// by hand:
//
//   VIBESELL_TOKEN=vs_… DATABASE_URL=postgres://… node check.mjs --card-uri ui://vibesell/card-<v>.html \
//     --http http://127.0.0.1:8080/mcp --stdio /path/to/server --workspace SLUG
//
// Either transport may be left out. Every check prints one line, PASS or
// FAIL; the exit code is 1 when anything failed.
//
// For every tool tools/list returns (never a fixed list: tools added later
// are checked too), it checks the card links and the four annotations, then
// calls the tool with arguments built from its inputSchema examples. The
// SDK validates each structuredContent against the tool's outputSchema
// itself (it does so only after listTools on the same client, which is why
// the list comes first); Ajv validates it again here, independently.
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { appendFileSync } from "node:fs";
import { parseArgs } from "node:util";

// The card's URI carries its version (ui://vibesell/card-<sha8>.html): the
// Go test passes the one the server must point at; the unversioned URI of
// earlier releases must still answer, with the same card.
let CARD_URI;
const LEGACY_CARD_URI = "ui://vibesell/card.html";
const CARD_MIME = "text/html;profile=mcp-app";
const ANNOTATIONS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];
const INTERNAL = /Something went wrong on our side/;
// How many questions of a choice card flow are answered before giving up.
const MAX_CHOICE_ROUNDS = 8;
// Rounds of retrying refused tools, and calls of one tool a refusal asks for.
const MAX_FOLLOW_ROUNDS = 4;
const MAX_FOLLOW_CALLS = 8;
const CALL_TIMEOUT_MS = 30_000;

// Refusals that a call built from the schema examples may legitimately get
// even after every other tool has run (so that the state it needs exists),
// because the tool documents it: tool name → { pattern, why }. Anything
// else that refuses a call with valid arguments is a FAIL. Keep this short
// and explain each entry.
const NO_BILLING = {
  pattern: /^Billing is not configured on this server/,
  why: "the e2e server runs without STRIPE_SECRET_KEY, and every billing tool says so; cmd/server's TestBillingIsServed calls them against stripe-mock",
};
const DOCUMENTED_REFUSALS = {
  get_plans_and_billing: NO_BILLING,
  start_checkout: NO_BILLING,
  open_billing_portal: NO_BILLING,
  upgrade_plan: NO_BILLING,
  start_warmup: {
    pattern: /no ordered mailboxes|not ready/i,
    why: "it needs mailboxes ordered through an approved order_sending_setup and made ready by a job; its description says it refuses when none is ordered or ready",
  },
  decide_approval: {
    pattern: /^Not recorded: approval \S+ was already (approved|rejected)/,
    why: "an approval is decided once: the run decides each one it opens, and a later decision (the second transport's, on the same workspace) is refused with the decision on record, as its description says",
  },
  // The second transport's run acts on the workspace the first one left:
  // its filters have moved past the example's version, which is the point
  // of the version (the person confirms the filters they saw).
  confirm_target: {
    pattern: /The filters changed after version \d+/,
    why: "it confirms only the filters version the person saw, and an earlier run changed the filters since; its description says so",
  },
  ...Object.fromEntries(["estimate_lead_pool", "preview_lead_sample"].map((name) => [name, {
    pattern: /filters (are not confirmed yet|changed after they were confirmed)/,
    why: "it waits for the target's filters to be confirmed, and an earlier run changed them since; its description says it refuses until confirm_target",
  }])),
  import_leads: {
    pattern: /filters (are not confirmed yet|changed after they were confirmed)|^Give count .* or upload/,
    why: "it needs count or upload (called with neither it gives the upload link), and the target's confirmed filters, which an earlier run changed since; its description says both",
  },
  // The campaign tools act on a sequence or campaign by its id: the
  // example's id names none in a workspace the script made, and an unknown
  // id is refused as not found, as their descriptions say.
  ...Object.fromEntries(["approve_sequence", "check_first_email", "stage_campaign"].map((name) => [name, {
    pattern: /^There is no sequence sq_[0-9a-f]{16} in this workspace/,
    why: "the example's sequence id names no sequence of this workspace; an unknown id is refused as not found",
  }])),
  ...Object.fromEntries(["launch_campaign", "stop_campaign", "resume_campaign"].map((name) => [name, {
    pattern: /^There is no campaign cp_[0-9a-f]{16} in this workspace/,
    why: "the example's campaign id names no campaign of this workspace; an unknown id is refused as not found",
  }])),
  answer_reply: {
    pattern: /^There is no reply with Message-ID \S+ in this workspace/,
    why: "the example's Message-ID names no reply of this workspace (a script's workspace has received none); an unknown reply is refused as not found",
  },
  correct_reply: {
    pattern: /^There is no reply "[^"]*" in this workspace/,
    why: "the example's reply id names no reply of this workspace (a script's workspace has received none); an unknown reply is refused as not found",
  },
  // The card's own tool (app-only) decides only with a one-time token the
  // server gave the card in a result's _meta: the example token is none.
  decide_in_card: {
    pattern: /^(This card is out of date|Pass either approval and decision, or card and answer)/,
    why: "it decides only with the one-time token a result gave the card (never an example's); its description says any other is refused",
  },
  get_lead: {
    pattern: /^"[^"]*" is not one of the workspace's leads/,
    why: "the example's lead id names no lead of this workspace (the script imports none); an unknown lead is refused as not found",
  },
  ...Object.fromEntries(["get_campaign", "estimate_campaign_plan"].map((name) => [name, {
    pattern: /^This workspace has no campaign yet/,
    why: "with no campaign staged there is nothing to show or estimate; the refusal names stage_campaign",
  }])),
};

// The choice-card protocol's argument: this script answers cards itself
// (see call), so the example answers (to a card that was never asked) are
// left out.
const ANSWERS = "answers";

const { values: opts } = parseArgs({
  options: {
    http: { type: "string" },
    stdio: { type: "string" },
    workspace: { type: "string" },
    "card-uri": { type: "string" },
    // The protocol revision the client offers, pinned: 2025-11-25 with
    // @modelcontextprotocol/sdk (1.x, whose newest revision it is), or
    // 2026-07-28 with @modelcontextprotocol/client (2.x, the first
    // TypeScript SDK that speaks it).
    protocol: { type: "string", default: "2025-11-25" },
    // Every result's text is appended here, one JSON line each, for the
    // Go test to proofread (e2e/sdk_test.go).
    dump: { type: "string" },
  },
});
if (!opts.http && !opts.stdio) {
  console.error("usage: node check.mjs --card-uri URI [--protocol 2025-11-25|2026-07-28] [--http URL] [--stdio BINARY --workspace SLUG]");
  process.exit(2);
}
CARD_URI = opts["card-uri"];
const MODERN = opts.protocol >= "2026-07-28";
if (!["2025-11-25", "2026-07-28"].includes(opts.protocol)) {
  console.error("--protocol is 2025-11-25 or 2026-07-28");
  process.exit(2);
}
const { Client, StreamableHTTPClientTransport, StdioClientTransport, getDefaultEnvironment } = MODERN
  ? { ...(await import("@modelcontextprotocol/client")), ...(await import("@modelcontextprotocol/client/stdio")) }
  : {
    ...(await import("@modelcontextprotocol/sdk/client/index.js")),
    ...(await import("@modelcontextprotocol/sdk/client/streamableHttp.js")),
    ...(await import("@modelcontextprotocol/sdk/client/stdio.js")),
  };
if (!/^ui:\/\/vibesell\/card-[0-9a-f]{8}\.html$/.test(CARD_URI ?? "")) {
  console.error("--card-uri must be the card's versioned URI, ui://vibesell/card-<8 hex digits>.html");
  process.exit(2);
}
if (opts.stdio && !opts.workspace) {
  console.error("--stdio needs --workspace SLUG");
  process.exit(2);
}

let passed = 0;
let failed = 0;
function pass(label, msg) {
  passed++;
  console.log(`PASS ${label} ${msg}`);
}
function fail(label, msg) {
  failed++;
  process.exitCode = 1;
  console.log(`FAIL ${label} ${oneLine(msg)}`);
}
function oneLine(s) {
  s = String(s).replace(/\s+/g, " ").trim();
  return s.length > 600 ? s.slice(0, 597) + "..." : s;
}
function errText(e) {
  return e instanceof Error ? e.message : String(e);
}

// Ajv on its own, not the SDK's instance: draft 2020-12 unless the schema
// names draft-07, formats (uuid, date-time, email…) checked.
const ajv2020 = addFormats(new Ajv2020({ allErrors: true, strict: false, validateFormats: true }));
const ajv07 = addFormats(new Ajv({ allErrors: true, strict: false, validateFormats: true }));
function compile(schema) {
  const draft07 = typeof schema.$schema === "string" && schema.$schema.includes("draft-07");
  return (draft07 ? ajv07 : ajv2020).compile(schema);
}

async function checkServer(label, transport) {
  const client = new Client(
    { name: "vibesell-e2e-sdk", version: "1.0.0" },
    {
      capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [CARD_MIME] } } },
      // 2.x: no probe and no fallback, exactly this revision or a failure.
      ...(MODERN ? { versionNegotiation: { mode: { pin: opts.protocol } } } : {}),
    },
  );
  try {
    await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  } catch (e) {
    fail(label, `connect: ${errText(e)}`);
    return;
  }
  try {
    const info = client.getServerVersion();
    const negotiated = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion;
    if (info?.name === "vibesell") pass(label, `${MODERN ? "server/discover" : "initialize"} (server ${info.name} ${info.version})`);
    else fail(label, `initialize: serverInfo ${JSON.stringify(info)}`);
    // Over stdio the 1.x transport does not say; the version the client
    // offers is its newest, 2025-11-25.
    if (negotiated === opts.protocol || (negotiated === undefined && !MODERN)) pass(label, `protocol ${opts.protocol}`);
    else fail(label, `negotiated protocol ${negotiated}, want ${opts.protocol}`);

    const tools = await listTools(client, label);
    if (tools.length > 0) {
      await checkCard(client, label);
      await checkTools(client, label, tools);
    }
  } catch (e) {
    fail(label, `unexpected: ${errText(e)}`);
  } finally {
    await client.close().catch(() => {});
  }
}

// listTools first: the SDK caches an outputSchema validator per tool and
// validates every later callTool with it.
async function listTools(client, label) {
  const tools = [];
  let cursor;
  let pages = 0;
  try {
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: CALL_TIMEOUT_MS });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && ++pages < 100);
  } catch (e) {
    fail(label, `tools/list: ${errText(e)}`);
    return [];
  }
  if (pages > 0 && client.cacheToolMetadata) {
    // Each listTools replaces the 1.x SDK's cache with its page: give it all.
    client.cacheToolMetadata(tools);
  }
  if (tools.length === 0) fail(label, "tools/list: no tools");
  else pass(label, `tools/list (${tools.length} tools: ${tools.map((t) => t.name).join(", ")})`);
  return tools;
}

async function checkCard(client, label) {
  try {
    const { resources } = await client.listResources({}, { timeout: CALL_TIMEOUT_MS });
    const listed = resources.find((r) => r.uri === CARD_URI);
    if (!listed) fail(label, `resources/list: ${CARD_URI} is not listed`);
    else if (listed.mimeType !== CARD_MIME) fail(label, `resources/list: ${CARD_URI} has mimeType ${listed.mimeType}, want ${CARD_MIME}`);
    else pass(label, `resources/list lists ${CARD_URI}`);

    const { contents } = await client.readResource({ uri: CARD_URI }, { timeout: CALL_TIMEOUT_MS });
    const c = contents?.[0];
    if (contents?.length !== 1 || c.uri !== CARD_URI) fail(label, `resources/read ${CARD_URI}: contents ${JSON.stringify(contents?.map((x) => x.uri))}`);
    else if (c.mimeType !== CARD_MIME) fail(label, `resources/read ${CARD_URI}: mimeType ${c.mimeType}, want ${CARD_MIME}`);
    else if (typeof c.text !== "string" || !/^\s*<!doctype html>/i.test(c.text)) fail(label, `resources/read ${CARD_URI}: not an HTML5 document`);
    else pass(label, `resources/read ${CARD_URI} (${CARD_MIME}, ${c.text.length} characters)`);

    const legacy = (await client.readResource({ uri: LEGACY_CARD_URI }, { timeout: CALL_TIMEOUT_MS })).contents?.[0];
    if (legacy?.uri !== LEGACY_CARD_URI || legacy?.text !== c?.text) fail(label, `resources/read ${LEGACY_CARD_URI}: not the current card under the URI asked for`);
    else pass(label, `resources/read ${LEGACY_CARD_URI} (an earlier release's URI) answers with the current card`);
  } catch (e) {
    fail(label, `resources: ${errText(e)}`);
  }
}

function checkDefinition(label, tool) {
  const problems = [];
  const meta = tool._meta ?? {};
  if (meta.ui?.resourceUri !== CARD_URI) problems.push(`_meta.ui.resourceUri is ${JSON.stringify(meta.ui?.resourceUri)}`);
  if (meta["ui/resourceUri"] !== CARD_URI) problems.push(`_meta["ui/resourceUri"] is ${JSON.stringify(meta["ui/resourceUri"])}`);
  if (meta["openai/outputTemplate"] !== CARD_URI) problems.push(`_meta["openai/outputTemplate"] is ${JSON.stringify(meta["openai/outputTemplate"])}`);
  // The card's own tool is for the app only; every other is the model's too.
  const visibility = JSON.stringify(meta.ui?.visibility ?? ["model", "app"]);
  const wantVisibility = tool.name === "decide_in_card" ? '["app"]' : '["model","app"]';
  if (visibility !== wantVisibility) problems.push(`_meta.ui.visibility is ${visibility}, want ${wantVisibility}`);
  for (const a of ANNOTATIONS) {
    if (typeof tool.annotations?.[a] !== "boolean") problems.push(`annotations.${a} is not set`);
  }
  if (!tool.title && !tool.annotations?.title) problems.push("no title");
  if (!tool.description) problems.push("no description");
  if (!tool.outputSchema) problems.push("no outputSchema");
  else if (!tool.outputSchema.properties?.kind) problems.push("the outputSchema has no kind");
  const props = tool.inputSchema?.properties ?? {};
  for (const [name, p] of Object.entries(props)) {
    if (!Array.isArray(p.examples) || p.examples.length === 0) problems.push(`input ${name} has no examples`);
  }
  if (problems.length > 0) fail(label, `${tool.name} definition: ${problems.join("; ")}`);
  else pass(label, `${tool.name} definition (card, annotations, schemas)`);
  return problems.length === 0;
}

// Values taken from earlier results, by field name, to give tools that
// act on something (an approval, a card…) a real id instead of an
// example that names nothing: the top-level text fields of every
// structuredContent, and the id of each top-level object as <name>Id.
const harvested = new Map();
function harvest(sc) {
  for (const [k, v] of Object.entries(sc ?? {})) {
    if (k === "kind") continue;
    if (typeof v === "string") harvested.set(k, v);
    else if (v && typeof v === "object" && !Array.isArray(v) && typeof v.id === "string") harvested.set(`${k}Id`, v.id);
  }
}

// buildArguments builds a call from the schema: the given properties,
// each from its first example, or from a harvested value of the same name
// that fits; overrides win over both.
function buildArguments(tool, names, overrides = {}) {
  const props = tool.inputSchema?.properties ?? {};
  const args = {};
  for (const name of names) {
    const p = props[name] ?? {};
    let value = p.examples?.[0];
    if (name in overrides) {
      args[name] = overrides[name];
      continue;
    }
    if (harvested.has(name)) {
      const candidate = harvested.get(name);
      try {
        const { examples: _, ...schema } = p;
        if (compile(schema)(candidate)) value = candidate;
      } catch {
        // A property schema Ajv cannot compile alone keeps its example.
      }
    }
    if (value !== undefined) args[name] = value;
  }
  return args;
}

// candidates are the argument sets tried for a valid call, in order: the
// required arguments alone, then with each optional one (a tool may need
// one of several, such as dailyVolume or leadCount), then with all, then
// the required ones with each other value of a short enum (a decision
// that is refused as "approve" may be taken as "reject").
function candidates(tool) {
  const schemaProps = tool.inputSchema?.properties ?? {};
  const props = Object.keys(schemaProps);
  const required = tool.inputSchema?.required ?? [];
  const optional = props.filter((p) => !required.includes(p) && p !== ANSWERS);
  const sets = [required, ...optional.map((p) => [...required, p])].map((names) => ({ names }));
  if (optional.length > 1) sets.push({ names: [...required, ...optional] });
  for (const name of required) {
    const { enum: values = [], examples = [] } = schemaProps[name] ?? {};
    if (values.length > 6) continue;
    for (const v of values) {
      if (v !== examples[0]) sets.push({ names: required, overrides: { [name]: v } });
    }
  }
  return sets;
}

function fullArguments(tool) {
  return Object.keys(tool.inputSchema?.properties ?? {}).filter((p) => p !== ANSWERS);
}

// tryValid calls tool with each candidate argument set until one is not
// refused; it returns that result, or the first refusal.
async function tryValid(client, label, tool, validate) {
  let first;
  for (const c of candidates(tool)) {
    const args = buildArguments(tool, c.names, c.overrides);
    const r = await call(client, label, tool, args, validate);
    r.args = args;
    if (r.error || r.refusal === undefined) return r;
    first ??= r;
  }
  return first;
}

function describe(args) {
  const text = JSON.stringify(args);
  return text === "{}" ? "no arguments" : oneLine(text).slice(0, 160);
}

// follow calls the other tools a refusal names, as many times as it
// names each (a step per domain, say), at most MAX_FOLLOW_CALLS each, and
// returns what it called. What they return is checked like any result.
async function follow(client, label, tool, refusal, byName, validators) {
  const followed = [];
  for (const [name, other] of byName) {
    if (name === tool.name) continue;
    const mentions = refusal.split(new RegExp(`\\b${name}\\b`)).length - 1;
    for (let i = 0; i < Math.min(mentions, MAX_FOLLOW_CALLS); i++) {
      const r = await tryValid(client, label, other, validators.get(name));
      if (r.error) fail(label, `call ${name} (${describe(r.args)}, as ${tool.name}'s refusal asked): ${r.error}`);
      if (r.error || r.refusal !== undefined) break;
      followed.push(name);
    }
  }
  return followed;
}

// call runs one tools/call and checks what came back. A choice card is
// answered (the first choice) and the tool called again, as the
// assistant would after asking the person, until it settles.
async function call(client, label, tool, args, validate) {
  const steps = [];
  for (let round = 0; ; round++) {
    let res;
    try {
      res = await client.callTool({ name: tool.name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
    } catch (e) {
      // The SDK throws when structuredContent is missing or does not fit
      // the outputSchema (or on a protocol error).
      return { error: `SDK: ${errText(e)}` };
    }
    if (opts.dump) {
      appendFileSync(opts.dump, JSON.stringify({ transport: label, tool: tool.name, isError: res.isError, text: res.content?.[0]?.text ?? "" }) + "\n");
    }
    const shape = checkShape(res, validate);
    if (shape) return { error: shape };
    if (res.isError) return { refusal: res.content[0].text, steps };
    const sc = res.structuredContent;
    harvest(sc);
    steps.push(sc.kind);
    if (sc.kind !== "choice") return { kind: sc.kind, steps };
    if (round >= MAX_CHOICE_ROUNDS) return { error: `still asking after ${round} answers (${steps.join(" → ")})` };
    const choice = sc.choices?.[0]?.id ?? "Whichever you recommend";
    args = { ...(sc.arguments ?? args), answers: [...(sc.answers ?? []), { card: sc.card, answer: choice }] };
  }
}

// checkShape: a result is text for the model plus structuredContent that
// fits the outputSchema; a refusal is text only.
function checkShape(res, validate) {
  const text = res.content?.[0];
  if (typeof res.isError !== "boolean") return `isError should be sent, true or false, got ${JSON.stringify(res.isError)}`;
  if (!Array.isArray(res.content) || res.content.length !== 1 || text.type !== "text" || !text.text) {
    return `content should be one non-empty text block, got ${JSON.stringify(res.content)?.slice(0, 200)}`;
  }
  if (res.isError) {
    if (res.structuredContent !== undefined) return "a refusal carries structuredContent";
    if (INTERNAL.test(text.text)) return `internal failure: ${text.text}`;
    return null;
  }
  const sc = res.structuredContent;
  if (!sc || typeof sc !== "object") return "no structuredContent";
  if (typeof sc.kind !== "string") return "structuredContent has no kind";
  if (!validate(sc)) {
    return `structuredContent does not fit the outputSchema (Ajv): ${ajv2020.errorsText(validate.errors)}`;
  }
  return null;
}

async function checkTools(client, label, tools) {
  const validators = new Map();
  const callable = [];
  for (const tool of tools) {
    if (!checkDefinition(label, tool)) continue;
    let validate;
    try {
      validate = compile(tool.outputSchema);
    } catch (e) {
      fail(label, `${tool.name} outputSchema does not compile (Ajv): ${errText(e)}`);
      continue;
    }
    // Neither validator may be vacuous: an object without kind is wrong.
    // (2.x validates every result against the listed outputSchema too, but
    // does not hand out its validator.)
    const sdkValidate = client.getToolOutputValidator ? client.getToolOutputValidator(tool.name) : () => ({ valid: false });
    if (!sdkValidate) {
      fail(label, `${tool.name}: the SDK holds no outputSchema validator, so it would not check results`);
      continue;
    }
    if (validate({}) || sdkValidate({}).valid) {
      fail(label, `${tool.name}: the outputSchema accepts {} (a result without kind)`);
      continue;
    }
    validators.set(tool.name, validate);
    callable.push(tool);
  }

  // Pass 1: a valid call of each tool (see candidates). A tool refused
  // here may need what other tools make (an approval, addresses for every
  // domain…): it is tried again after the rest, and a refusal that names
  // the tools to call first (as refusals should) is followed, once per
  // mention, until nothing more succeeds.
  const byName = new Map(callable.map((t) => [t.name, t]));
  let pending = [];
  for (const tool of callable) {
    const r = await tryValid(client, label, tool, validators.get(tool.name));
    if (r.error) fail(label, `call ${tool.name} (${describe(r.args)}): ${r.error}`);
    else if (r.refusal !== undefined) pending.push(tool);
    else pass(label, `call ${tool.name} (${describe(r.args)}) → ${r.steps.join(" → ")}`);
  }
  const refusals = new Map();
  for (let round = 0, progress = true; pending.length > 0 && progress && round < MAX_FOLLOW_ROUNDS; round++) {
    progress = false;
    const still = [];
    for (const tool of pending) {
      let r = await tryValid(client, label, tool, validators.get(tool.name));
      if (r.refusal !== undefined && !r.error) {
        const followed = await follow(client, label, tool, r.refusal, byName, validators);
        if (followed.length > 0) {
          r = await tryValid(client, label, tool, validators.get(tool.name));
          r.after = `after ${followed.join(", ")}`;
        }
      }
      if (r.error) {
        fail(label, `call ${tool.name} (${describe(r.args)}, after the others): ${r.error}`);
      } else if (r.refusal === undefined) {
        pass(label, `call ${tool.name} (${describe(r.args)}, ${r.after ?? "after the others"}) → ${r.steps.join(" → ")}`);
        progress = true;
      } else {
        refusals.set(tool.name, r);
        still.push(tool);
      }
    }
    pending = still;
  }
  for (const tool of pending) {
    const r = refusals.get(tool.name);
    if (DOCUMENTED_REFUSALS[tool.name]?.pattern.test(r.refusal)) {
      pass(label, `call ${tool.name} refused as documented (${DOCUMENTED_REFUSALS[tool.name].why}): ${oneLine(r.refusal)}`);
    } else {
      fail(label, `call ${tool.name}: every call built from its own schema examples was refused, the first (${describe(r.args)}) with "${r.refusal}" ` +
        "(make the examples valid, or list this refusal in DOCUMENTED_REFUSALS in e2e/sdk/check.mjs with the reason)");
    }
  }

  // Pass 2: every tool again, every argument from its example, now that
  // the workspace has state (an offer, a playbook…), so optional fields
  // and fuller results are checked too. Examples of different arguments
  // may contradict each other (remember: fact and forget): a refusal is
  // fine here, a failure or an output that breaks its schema is not.
  for (const tool of callable) {
    const r = await call(client, label, tool, buildArguments(tool, fullArguments(tool)), validators.get(tool.name));
    if (r.error) fail(label, `call ${tool.name} (all arguments): ${r.error}`);
    else if (r.refusal !== undefined) pass(label, `call ${tool.name} (all arguments) refused: ${oneLine(r.refusal)}`);
    else pass(label, `call ${tool.name} (all arguments) → ${r.steps.join(" → ")}`);
  }
}

if (opts.http) {
  const token = process.env.VIBESELL_TOKEN;
  if (!token) {
    fail("http", "VIBESELL_TOKEN is not set");
  } else {
    harvested.clear();
    const transport = new StreamableHTTPClientTransport(new URL(opts.http), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await checkServer("http", transport);
  }
}

if (opts.stdio) {
  harvested.clear();
  const transport = new StdioClientTransport({
    command: opts.stdio,
    args: ["stdio", "--workspace", opts.workspace],
    env: {
      ...getDefaultEnvironment(),
      DATABASE_URL: process.env.DATABASE_URL ?? "",
      LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    },
    stderr: "pipe",
  });
  // The server's log goes to this script's stderr, where the Go test
  // finds the cause of an internal failure by its ref.
  transport.stderr?.pipe(process.stderr);
  await checkServer("stdio", transport);
}

console.log(`SUMMARY ${passed} passed, ${failed} failed`);
