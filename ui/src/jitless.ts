// Imported first, before the MCP Apps SDK: zod decides whether it may
// compile validators with new Function() when each schema is built, and the
// SDK builds its schemas as it loads. The default MCP Apps CSP forbids
// eval, so the probe alone would be reported as a violation. The App
// constructor turns jitless on too (allowUnsafeEval: false), but only after
// those schemas exist.
import { config } from "zod/v4";

config({ jitless: true });
