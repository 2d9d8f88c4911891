// Connects to a running VibeSell server as a remote app such as the Claude
// app does, with the official MCP TypeScript SDK's OAuth client: it
// registers itself (dynamic client registration), or with
// --client-metadata-url identifies itself by that client ID metadata
// document instead, this script plays the
// person who signs in and allows on the web app's pages (over HTTP, with a
// cookie jar), and the client then calls a tool and refreshes its token.
// e2e/oauth_test.go runs it; by hand:
//
//   VIBESELL_EMAIL=you@example.com VIBESELL_PASSWORD=… \
//     node oauth.mjs --http http://127.0.0.1:8080/mcp
//
// Every check prints one line, PASS or FAIL, then a SUMMARY line; the exit
// code is 1 when anything failed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError, refreshAuthorization } from "@modelcontextprotocol/sdk/client/auth.js";
import { parseArgs } from "node:util";

const { values: opts } = parseArgs({ options: { http: { type: "string" }, "client-metadata-url": { type: "string" } } });
if (!opts.http || !process.env.VIBESELL_EMAIL || !process.env.VIBESELL_PASSWORD) {
  console.error("usage: VIBESELL_EMAIL=… VIBESELL_PASSWORD=… node oauth.mjs --http URL/mcp [--client-metadata-url https://…/client.json]");
  process.exit(2);
}
const mcpURL = new URL(opts.http);
const origin = mcpURL.origin;
// The app's callback is never reached: the browser's last redirect is read
// here instead, as a desktop app's loopback listener would.
const REDIRECT = "http://127.0.0.1:9/callback";
const NAME = "TypeScript SDK check";
// The URL of the app's client ID metadata document, when it has one: the
// SDK then uses it as its client_id rather than registering.
const METADATA_URL = opts["client-metadata-url"];

let passed = 0;
let failed = 0;
const pass = (what) => { passed++; console.log(`PASS ${what}`); };
const fail = (what, why) => { failed++; console.log(`FAIL ${what}: ${why}`); };

// The app's side: what the SDK asks its host application to keep.
class Provider {
  get redirectUrl() { return REDIRECT; }
  get clientMetadataUrl() { return METADATA_URL; }
  get clientMetadata() {
    return {
      client_name: NAME, redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"], token_endpoint_auth_method: "none",
    };
  }
  clientInformation() { return this.info; }
  saveClientInformation(info) { this.info = info; }
  tokens() { return this.saved; }
  saveTokens(tokens) { this.saved = tokens; }
  redirectToAuthorization(url) { this.authorizationURL = url; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
}

// The person's browser: cookies kept, redirects read rather than followed.
const jar = new Map();
async function browse(url, init = {}) {
  const headers = new Headers(init.headers ?? {});
  if (jar.size) headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
  const res = await fetch(new URL(url, origin), { ...init, headers, redirect: "manual" });
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(";");
    const i = pair.indexOf("=");
    if (/max-age=(-1|0)\b/i.test(c)) jar.delete(pair.slice(0, i));
    else jar.set(pair.slice(0, i), pair.slice(i + 1));
  }
  return { status: res.status, location: res.headers.get("location"), body: await res.text() };
}
const post = (url, form) => browse(url, {
  method: "POST", body: new URLSearchParams(form),
  headers: { origin, "content-type": "application/x-www-form-urlencoded" },
});
function csrf(page) {
  const m = page.match(/name="csrf" value="([^"]+)"/);
  if (!m) throw new Error("the page has no form with a CSRF token");
  return m[1];
}

// signInAndAllow follows the authorization URL to the consent page,
// signing in on the way, allows, and returns the code the app receives.
async function signInAndAllow(authorizationURL) {
  let r = await browse(authorizationURL);
  if (r.status !== 303) throw new Error(`authorize answered ${r.status}: ${r.body.slice(0, 300)}`);
  const consent = r.location;
  r = await browse(consent);
  if (r.status === 303) {
    const signIn = r.location;
    r = await browse(signIn);
    const next = new URL(signIn, origin).searchParams.get("next");
    r = await post("/app/sign-in", { email: process.env.VIBESELL_EMAIL, password: process.env.VIBESELL_PASSWORD, csrf: csrf(r.body), next });
    if (r.status !== 303 || r.location !== consent) throw new Error(`sign-in answered ${r.status} to ${r.location}`);
    r = await browse(consent);
  }
  if (r.status !== 200) throw new Error(`the consent page answered ${r.status}`);
  if (!r.body.includes(`Connect ${NAME} to VibeSell?`)) throw new Error("the consent page does not name the app");
  if (METADATA_URL) {
    // Its name is vouched for by the host that publishes the document.
    const host = new URL(METADATA_URL).hostname;
    if (r.body.includes('id="unverified"') || !r.body.includes(`id="published-by">${host}<`)) {
      throw new Error(`the consent page does not name the app as described by ${host}`);
    }
  } else if (!r.body.includes("unverified")) {
    throw new Error("the consent page does not name the app as unverified");
  }
  r = await post(consent, { csrf: csrf(r.body), decision: "allow" });
  if (r.status !== 303) throw new Error(`allow answered ${r.status}`);
  const back = new URL(r.location);
  if (!r.location.startsWith(REDIRECT + "?") || !back.searchParams.get("code")) throw new Error(`allow sent the browser to ${r.location}`);
  if (back.searchParams.get("iss") !== origin) throw new Error(`the redirect names issuer ${back.searchParams.get("iss")}, want ${origin}`);
  return back.searchParams.get("code");
}

const provider = new Provider();
try {
  const first = new Client({ name: "vibesell-oauth-check", version: "1" });
  try {
    await first.connect(new StreamableHTTPClientTransport(mcpURL, { authProvider: provider }));
    fail("a connection without signing in is refused", "it connected");
  } catch (e) {
    if (!(e instanceof UnauthorizedError) || !provider.authorizationURL) throw e;
    if (!METADATA_URL) pass(`the client registered (${provider.info?.client_id}) and was sent to authorize`);
    else if (provider.info?.client_id === METADATA_URL && provider.authorizationURL.searchParams.get("client_id") === METADATA_URL) {
      pass("the client identified itself by its metadata document URL, without registering, and was sent to authorize");
    } else fail("the client identifies itself by its metadata document URL", JSON.stringify(provider.info));
  }
  const url = provider.authorizationURL;
  if (url.searchParams.get("code_challenge_method") === "S256" && url.searchParams.get("resource") === mcpURL.href) {
    pass("the authorization request carries PKCE S256 and the resource");
  } else {
    fail("the authorization request carries PKCE S256 and the resource", url.href);
  }
  const code = await signInAndAllow(url);
  pass("the person signed in and allowed on the web app's pages");

  const transport = new StreamableHTTPClientTransport(mcpURL, { authProvider: provider });
  await transport.finishAuth(code);
  pass("the code was exchanged for tokens");
  const client = new Client({ name: "vibesell-oauth-check", version: "1" });
  await client.connect(transport);
  const res = await client.callTool({ name: "list_pending_approvals", arguments: {} });
  if (res.isError) fail("a tool answers", JSON.stringify(res.content).slice(0, 300));
  else pass("list_pending_approvals answered through OAuth");
  await client.close();

  // The refresh token rotates: the new one works, the old one is refused.
  const old = provider.saved.refresh_token;
  const asMeta = await (await fetch(new URL("/.well-known/oauth-authorization-server", origin))).json();
  const fresh = await refreshAuthorization(asMeta.issuer, {
    metadata: asMeta, clientInformation: provider.info, refreshToken: old, resource: mcpURL,
  });
  if (fresh.refresh_token && fresh.refresh_token !== old) pass("refreshing rotates the refresh token");
  else fail("refreshing rotates the refresh token", JSON.stringify(fresh));
  try {
    await refreshAuthorization(asMeta.issuer, { metadata: asMeta, clientInformation: provider.info, refreshToken: old, resource: mcpURL });
    fail("a used refresh token is refused", "it was accepted");
  } catch (e) {
    pass(`a used refresh token is refused (${e.constructor.name}: ${e.message})`);
  }
} catch (e) {
  fail("the OAuth flow", e?.stack ?? String(e));
}
console.log(`SUMMARY ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
